// An asymmetric endpoint through the real binary: a discord endpoint whose
// public key comes from a key pair generated here. A delivery signed here
// (OpenSSL EVP, independent of src/verify) is accepted and stored; a forged
// one is answered 401 and not stored, and so is a forged PING, while a genuine
// PING gets 204. `send-test --private-key` signs one the server accepts, and
// without --private-key send-test exits 2 saying why.
#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Key NewEd25519() { return Key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), EVP_PKEY_free); }

std::string Hex(const unsigned char* data, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::string PublicHex(const Key& k) {
  unsigned char raw[32];
  size_t len = sizeof raw;
  REQUIRE(EVP_PKEY_get_raw_public_key(k.get(), raw, &len) == 1);
  return Hex(raw, len);
}

std::string PrivatePem(const Key& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PrivateKey(bio, k.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

// Discord's signature: Ed25519 over timestamp + body, hex.
std::string SignHex(const Key& k, const std::string& data) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char sig[64];
  size_t len = sizeof sig;
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) == 1);
  REQUIRE(EVP_DigestSign(ctx.get(), sig, &len, reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1);
  return Hex(sig, len);
}

struct DiscordServer {
  Key key = NewEd25519();
  Key other = NewEd25519();
  Installation inst;
  ServerProcess server{inst};
  DiscordServer() {
    inst.WriteTestConfig(R"(
[[endpoint]]
name = "discord"
provider = "discord"
public_key_file = "keys/discord.hex"
)");
    Write("keys/discord.hex", PublicHex(key) + "\n");
    server.Start();
  }
  // Writes `content` to `name` under the installation (before or after Start).
  void Write(const std::string& name, const std::string& content) const {
    const std::filesystem::path path = std::filesystem::path(inst.dir()) / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }
  HttpResult Post(const Key& signer, const std::string& body) const {
    const std::string ts = std::to_string(NowSeconds());
    return server.Request("POST", "/hooks/discord", body,
                          {{"X-Signature-Ed25519", SignHex(signer, ts + body)}, {"X-Signature-Timestamp", ts}});
  }
  CommandResult SendTest(const std::string& args) const {
    return RunCommand(BinaryPath() + " send-test discord " + args + " -c " + inst.config_path() +
                      " --url https://127.0.0.1:" + std::to_string(server.port()) + " 2>&1");
  }
};

}  // namespace

TEST_CASE("asymmetric: a Discord delivery signed with the configured key is stored; a forged one is 401",
          "[integration][asymmetric]") {
  DiscordServer s;
  const std::string body = R"({"version":1,"application_id":"1","type":1,"event":{"type":"APPLICATION_AUTHORIZED",)"
                           R"("timestamp":"2026-11-30T17:00:00.000000","data":{"user":{"id":"42"}}}})";
  HttpResult ok = s.Post(s.key, body);
  INFO(ok.body);
  CHECK(ok.status == 200);
  CHECK(ok.body.find("accepted") != std::string::npos);

  HttpResult forged = s.Post(s.other, body);
  CHECK(forged.status == 401);
  HttpResult unsigned_post = s.server.Request("POST", "/hooks/discord", body, {});
  CHECK(unsigned_post.status == 401);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE endpoint = 'discord'") == "1");
  CHECK(s.inst.Sql("SELECT event_type FROM webhook_inbox WHERE endpoint = 'discord'") == "APPLICATION_AUTHORIZED");

  // Discord's PING is verified like any delivery, then answered 204 and not stored; a forged one is 401.
  const std::string ping = R"({"version":1,"application_id":"1","type":0})";
  CHECK(s.Post(s.other, ping).status == 401);
  HttpResult pong = s.Post(s.key, ping);
  CHECK(pong.status == 204);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE endpoint = 'discord'") == "1");
}

TEST_CASE("asymmetric: send-test signs with --private-key, and without it exits 2 saying why",
          "[integration][asymmetric][send-test]") {
  DiscordServer s;
  s.Write("keys/discord-private.pem", PrivatePem(s.key));
  auto with_key = s.SendTest("--private-key " + s.inst.dir() + "/keys/discord-private.pem --event-type test.event");
  INFO(with_key.out);
  CHECK(with_key.exit_code == 0);
  CHECK(with_key.out.find("\"accepted\"") != std::string::npos);
  CHECK(with_key.out.find("PRIVATE KEY") == std::string::npos);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_type = 'test.event'") == "1");

  auto without = s.SendTest("");
  INFO(without.out);
  CHECK(without.exit_code == 2);
  CHECK(without.out.find("--private-key") != std::string::npos);
  CHECK(without.out.find("public key") != std::string::npos);

  s.Write("keys/other-private.pem", PrivatePem(s.other));
  auto wrong_key = s.SendTest("--private-key " + s.inst.dir() + "/keys/other-private.pem");
  INFO(wrong_key.out);
  CHECK(wrong_key.exit_code == 1);
  CHECK(wrong_key.out.find("401") != std::string::npos);
}
