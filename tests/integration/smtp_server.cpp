#include "smtp_server.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "harness.h"

namespace hookinbox::testing {

SmtpServer::SmtpServer(const std::string& mode) {
  const std::string cert = dir_.File("cert.pem"), key = dir_.File("key.pem");
  auto made = RunCommand("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext "
                         "subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " + key + " -out " + cert + " 2>&1");
  INFO(made.out);
  REQUIRE(made.exit_code == 0);
  std::filesystem::create_directory(dir_.File("mail"));
  const std::string log = dir_.File("smtp.log");
  const std::string script = std::string(HOOKINBOX_SOURCE_DIR) + "/tests/support/smtp_capture.py";
  const std::string mail = dir_.File("mail");
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    ::dup2(::fileno(f), 2);
    ::execl("/usr/bin/python3", "python3", script.c_str(), "--dir", mail.c_str(), "--cert", cert.c_str(), "--key",
            key.c_str(), "--user", kSmtpUser, "--password", kSmtpPassword,
            mode.empty() ? static_cast<char*>(nullptr) : mode.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  static const std::regex kListening(R"(listening port=(\d+))");
  std::string text;
  const bool listening = PollUntil(
      [&] {
        text = ReadFile(log);
        std::smatch m;
        if (!std::regex_search(text, m, kListening)) return false;
        port_ = std::stoi(m[1]);
        return true;
      },
      std::chrono::seconds(20));
  INFO("smtp_capture.py: " << text);
  REQUIRE(listening);
}

SmtpServer::~SmtpServer() {
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
}

std::string SmtpServer::Url(const std::string& scheme, const std::string& password) const {
  return scheme + "://" + kSmtpUser + ":" + password + "@127.0.0.1:" + std::to_string(port_);
}

std::vector<std::string> SmtpServer::Messages() const {
  std::vector<std::string> out;
  for (int i = 1; std::filesystem::exists(dir_.File("mail/message-" + std::to_string(i) + ".eml")); ++i) {
    out.push_back(ReadFile(dir_.File("mail/message-" + std::to_string(i) + ".eml")));
  }
  return out;
}

std::string EmailChannel(const Installation& inst, const SmtpServer& smtp, const std::string& url) {
  const std::string file = inst.dir() + "/secrets/smtp.url";
  { std::ofstream(file) << url << "\n"; }
  ::chmod(file.c_str(), 0600);
  return "\n[[alert.channel]]\nname = \"mail\"\ntype = \"email\"\nsmtp_url_file = \"" + file +
         "\"\nfrom = \"hookinbox@example.com\"\nto = [\"ops@example.com\", \"cto@example.com\"]\nca_file = \"" +
         smtp.ca_file() + "\"\ntimeout_seconds = 10\n";
}

}  // namespace hookinbox::testing
