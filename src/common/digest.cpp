#include "common/digest.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

#include "common/encoding.h"

namespace hookinbox {

std::string Sha256(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string Sha256Hex(std::string_view data) { return HexEncode(Sha256(data)); }

}  // namespace hookinbox
