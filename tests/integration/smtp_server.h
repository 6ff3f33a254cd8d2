// tests/integration/smtp_server.h — a real SMTP server for the e-mail alert
// channel's tests: tests/support/smtp_capture.py (Debian python3-aiosmtpd) in
// its own process, STARTTLS (or implicit TLS) with AUTH required, a
// self-signed certificate the channel trusts through ca_file, every message
// captured to a file. A missing aiosmtpd fails the test loudly, never skips.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace hookinbox::testing {

inline constexpr const char* kSmtpUser = "alerts";
inline constexpr const char* kSmtpPassword = "smtp-Pass-Do-Not-Print-4";

class SmtpServer {
 public:
  // `mode`: "" (STARTTLS), "--implicit-tls" or "--no-starttls". REQUIREs that it listens.
  explicit SmtpServer(const std::string& mode = "");
  ~SmtpServer();  // SIGTERM, and waits for it
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  // "smtp://alerts:PASSWORD@127.0.0.1:PORT" (or smtps://).
  std::string Url(const std::string& scheme, const std::string& password = kSmtpPassword) const;
  std::string ca_file() const { return dir_.File("cert.pem"); }
  // Every captured message (envelope lines, then the message as received), in arrival order.
  std::vector<std::string> Messages() const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// An [[alert.channel]] named "mail" of type email to `smtp` at `url`
// (SmtpServer::Url), its smtp_url in a 0600 file as a password should be,
// trusting the server's certificate; to ops@ and cto@example.com.
class Installation;
std::string EmailChannel(const Installation& inst, const SmtpServer& smtp, const std::string& url);

}  // namespace hookinbox::testing
