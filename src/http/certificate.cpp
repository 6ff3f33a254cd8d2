#include "http/certificate.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/metrics.h"
#include "http/tls.h"

namespace hookinbox::http {
namespace {

// PEM files we serve are a few kB; anything far larger is the wrong file.
constexpr size_t kMaxPemBytes = 1 << 20;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;

// What messages call each file: the config key when known.
struct Names {
  std::string cert, key;
};
Names NamesFor(std::string_view section) {
  if (section.empty()) return {"certificate", "key"};
  return {std::string(section) + ".tls_cert", std::string(section) + ".tls_key"};
}

// The file's bytes, wiped on destruction: the key file is a secret.
struct FileBytes {
  std::string data;
  unsigned mode = 0;  // permission bits of the file read (st_mode & 07777)
  ~FileBytes() {
    if (!data.empty()) OPENSSL_cleanse(data.data(), data.size());
  }
};

// Empty on success, else why the file cannot be used ("No such file or directory").
std::string ReadPem(const std::string& path, FileBytes* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::strerror(errno);
  struct stat st;
  if (::fstat(::fileno(f), &st) == 0) out->mode = st.st_mode & 07777;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && out->data.size() <= kMaxPemBytes) out->data.append(buf, n);
  bool failed = std::ferror(f) != 0;
  OPENSSL_cleanse(buf, sizeof buf);
  std::fclose(f);
  if (failed) return "read error";
  if (out->data.size() > kMaxPemBytes) return "larger than 1 MiB, not a PEM certificate or key";
  return "";
}

BioPtr MemoryBio(const std::string& data) {
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

// Never prompts on the terminal for an encrypted key's passphrase.
int NoPassphrase(char*, int, int, void*) { return -1; }

// The leaf and the certificates after it, in file order.
Status ParseCertificates(const std::string& pem, const std::string& what, CertificatePair* pair) {
  BioPtr bio = MemoryBio(pem);
  CertPtr leaf(PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!leaf) {
    ERR_clear_error();
    std::string hint = pem.find("PRIVATE KEY-----") != std::string::npos
                           ? " (it holds a private key: are tls_cert and tls_key swapped?)"
                           : "";
    return InvalidArgument(what + " holds no PEM certificate" + hint);
  }
  pair->chain = sk_X509_new_null();
  while (X509* next = PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr)) sk_X509_push(pair->chain, next);
  ERR_clear_error();  // the end of the file reads as "no start line"
  pair->leaf = leaf.release();
  return Status::Ok();
}

Status ParseKey(const std::string& pem, const std::string& what, CertificatePair* pair) {
  BioPtr bio = MemoryBio(pem);
  pair->key = PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr);
  if (pair->key != nullptr) return Status::Ok();
  ERR_clear_error();
  if (pem.find("ENCRYPTED") != std::string::npos) {
    return InvalidArgument(what + " is encrypted; hookinbox needs an unencrypted key (keep the file mode 0600)");
  }
  std::string hint = pem.find("CERTIFICATE-----") != std::string::npos ? " (it holds a certificate)" : "";
  return InvalidArgument(what + " holds no PEM private key" + hint);
}

// A private key anyone but its owner can read is as good as published on a
// shared host, so it is refused rather than warned about: ssh does the same.
Status CheckKeyMode(const std::string& what, const std::string& path, unsigned mode) {
  if ((mode & 077) == 0) return Status::Ok();
  char octal[16];
  std::snprintf(octal, sizeof octal, "%04o", mode);
  return InvalidArgument(what + " is readable by group or others (mode " + octal + "); run: chmod 600 " + path);
}

struct Instant {
  int64_t ms = 0;
  std::string iso;
};
bool ToInstant(const ASN1_TIME* t, Instant* out) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return false;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  out->iso = buf;
  out->ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  return true;
}

std::string Sha256Hex(X509* cert) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (X509_digest(cert, EVP_sha256(), md, &len) != 1) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

// Refuses a certificate outside its validity at `now_ms`; warns within 14 days of its end.
Status CheckValidity(const std::string& what, int64_t now_ms, CertificatePair* pair) {
  Instant not_before, not_after;
  if (!ToInstant(X509_get0_notBefore(pair->leaf), &not_before) ||
      !ToInstant(X509_get0_notAfter(pair->leaf), &not_after)) {
    return InvalidArgument(what + " has an unreadable validity period");
  }
  if (now_ms < not_before.ms) return InvalidArgument(what + " is not valid before " + not_before.iso);
  if (now_ms > not_after.ms) return InvalidArgument(what + " expired on " + not_after.iso);
  pair->not_after_ms = not_after.ms;
  pair->not_after = not_after.iso;
  if (not_after.ms - now_ms < kExpiryWarningMs) {
    int64_t days = (not_after.ms - now_ms) / 86400000;
    pair->warnings.push_back(what + " expires on " + not_after.iso + " (in " + std::to_string(days) +
                             (days == 1 ? " day" : " days") + "): renew it, then send serve SIGHUP");
  }
  return Status::Ok();
}

// Clients build the path from the leaf up; a misordered chain fails some of them.
void CheckChainOrder(const std::string& what, CertificatePair* pair) {
  X509* previous = pair->leaf;
  for (int i = 0; i < sk_X509_num(pair->chain); ++i) {
    X509* next = sk_X509_value(pair->chain, i);
    if (X509_check_issued(next, previous) != X509_V_OK) {
      pair->warnings.push_back(what + ": chain out of order (certificate " + std::to_string(i + 2) +
                               " in the file did not issue certificate " + std::to_string(i + 1) + ")");
      return;
    }
    previous = next;
  }
}

}  // namespace

CertificatePair::~CertificatePair() {
  if (chain != nullptr) sk_X509_pop_free(chain, X509_free);
  EVP_PKEY_free(key);
  X509_free(leaf);
}

Result<std::shared_ptr<const CertificatePair>> LoadCertificatePair(const std::string& cert_path,
                                                                   const std::string& key_path, const Clock& clock,
                                                                   std::string_view section) {
  const Names names = NamesFor(section);
  const std::string cert_what = names.cert + " " + cert_path;
  const std::string key_what = names.key + " " + key_path;
  auto pair = std::make_shared<CertificatePair>();
  {
    FileBytes bytes;
    if (std::string why = ReadPem(cert_path, &bytes); !why.empty()) {
      return InvalidArgument(cert_what + " cannot be read: " + why);
    }
    if (Status st = ParseCertificates(bytes.data, cert_what, pair.get()); !st.ok()) return st;
  }
  {
    FileBytes bytes;
    if (std::string why = ReadPem(key_path, &bytes); !why.empty()) {
      return InvalidArgument(key_what + " cannot be read: " + why);
    }
    if (Status st = ParseKey(bytes.data, key_what, pair.get()); !st.ok()) return st;
    if (Status st = CheckKeyMode(key_what, key_path, bytes.mode); !st.ok()) return st;
  }
  if (X509_check_private_key(pair->leaf, pair->key) != 1) {
    ERR_clear_error();
    return InvalidArgument(key_what + " does not match " + cert_what + " (it is the key of another certificate)");
  }
  if (Status st = CheckValidity(cert_what, clock.NowMs(), pair.get()); !st.ok()) return st;
  CheckChainOrder(cert_what, pair.get());
  pair->sha256 = Sha256Hex(pair->leaf);
  // Computes the leaf's cached extension data now, on one thread, rather than
  // lazily inside concurrent handshakes.
  X509_check_purpose(pair->leaf, -1, 0);
  return std::shared_ptr<const CertificatePair>(std::move(pair));
}

ServingCertificate::ServingCertificate(std::string cert_path, std::string key_path, const Clock& clock,
                                       std::string section)
    : cert_path_(std::move(cert_path)), key_path_(std::move(key_path)), clock_(clock), section_(std::move(section)) {}

Status ServingCertificate::Reload() {
  auto pair = LoadCertificatePair(cert_path_, key_path_, clock_, section_);
  if (!pair.ok()) return pair.status();
  metrics::Registry::Default().Set(metrics::kTlsCertificateExpiry, {section_},
                                   static_cast<double>((*pair)->not_after_ms / 1000));
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(pair).value();
  return Status::Ok();
}

std::shared_ptr<const CertificatePair> ServingCertificate::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

void ServingCertificate::Attach(SSL_CTX* ctx) { SSL_CTX_set_cert_cb(ctx, &ServingCertificate::OnHandshake, this); }

// Runs on the connection's thread during ClientHello processing (TLS 1.2 and
// 1.3). SSL_use_cert_and_key takes its own references, so a Reload that drops
// the pair meanwhile frees nothing this connection still uses.
int ServingCertificate::OnHandshake(SSL* ssl, void* self) {
  std::shared_ptr<const CertificatePair> pair = static_cast<ServingCertificate*>(self)->Current();
  if (!pair) return 0;  // aborts this handshake only
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, /*override=*/1) == 1 ? 1 : 0;
}

bool SetUpServerContext(SSL_CTX& ctx, ServingCertificate& certificate) {
  // What the library's path constructor sets, which this setup replaces.
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  TuneServerContext(&ctx);
  certificate.Attach(&ctx);
  return true;
}

}  // namespace hookinbox::http
