#include <catch2/catch.hpp>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>

#include "http/tls.h"
#include "support/temp_dir.h"

using namespace hookinbox;

TEST_CASE("tls: the self-signed certificate is P-256, names localhost and 127.0.0.1, key is 0600", "[http]") {
  testing::TempDir dir;
  std::string cert_path = dir.File("cert.pem"), key_path = dir.File("key.pem");
  REQUIRE(http::WriteSelfSignedCertificate(cert_path, key_path, {}).ok());

  struct stat st{};
  REQUIRE(::stat(key_path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  FILE* f = std::fopen(cert_path.c_str(), "r");
  REQUIRE(f != nullptr);
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  REQUIRE(cert != nullptr);
  EVP_PKEY* pub = X509_get0_pubkey(cert);
  CHECK(EVP_PKEY_get_base_id(pub) == EVP_PKEY_EC);
  CHECK(X509_check_host(cert, "localhost", 0, 0, nullptr) == 1);
  CHECK(X509_check_ip_asc(cert, "127.0.0.1", 0) == 1);
  CHECK(X509_check_ip_asc(cert, "::1", 0) == 1);
  CHECK(X509_check_host(cert, "example.com", 0, 0, nullptr) != 1);
  CHECK(X509_verify(cert, pub) == 1);  // self-signed

  FILE* kf = std::fopen(key_path.c_str(), "r");
  REQUIRE(kf != nullptr);
  EVP_PKEY* key = PEM_read_PrivateKey(kf, nullptr, nullptr, nullptr);
  std::fclose(kf);
  REQUIRE(key != nullptr);
  CHECK(X509_check_private_key(cert, key) == 1);
  EVP_PKEY_free(key);
  X509_free(cert);
}

TEST_CASE("tls: writing into a missing directory fails with a clear error", "[http]") {
  Status st = http::WriteSelfSignedCertificate("/nonexistent/dir/cert.pem", "/nonexistent/dir/key.pem", {});
  CHECK_FALSE(st.ok());
  CHECK(st.message().find("/nonexistent/dir/key.pem") != std::string::npos);
}
