// The email channel: an RFC 5322 message sent over SMTP with libcurl.
//
// smtp:// must upgrade with STARTTLS (CURLUSESSL_ALL: no plain-text
// fallback, so the password never crosses the network in clear); smtps://
// is TLS from the first byte. AUTH uses the URL's user:password, with
// whichever of PLAIN and LOGIN the server offers. curl prints nothing (no
// verbose, no progress) and installs no signal handler (CURLOPT_NOSIGNAL:
// the process's own handlers stay; SIGPIPE is blocked around the transfer
// instead). Failures name the SMTP reply code and
// curl's reason, never the URL.
#include <curl/curl.h>
#include <time.h>

#include <cstring>
#include <memory>

#include "action/sigpipe_guard.h"
#include "alert/channel_email.h"
#include "alert/channel_formats.h"
#include "common/digest.h"
#include "common/encoding.h"

namespace hookinbox::alert {
namespace {

// Header values must not carry a line break (header injection).
std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\r' || c == '\n') ? ' ' : c;
  return out;
}

bool IsAscii(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// RFC 2047: a UTF-8 subject as one base64 encoded-word.
std::string EncodeHeaderText(const std::string& s) {
  const std::string line = OneLine(s);
  return IsAscii(line) ? line : "=?UTF-8?B?" + Base64Encode(line) + "?=";
}

std::string DateHeader(int64_t now_ms) {
  const time_t seconds = static_cast<time_t>(now_ms / 1000);
  struct tm tm = {};
  gmtime_r(&seconds, &tm);
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buf[64];
  snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
           kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

// Text with bare LF turned into CRLF, as SMTP requires.
std::string Crlf(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out += '\r';
    out += text[i];
  }
  return out;
}

struct Upload {
  const std::string& data;
  size_t sent = 0;
};

size_t ReadChunk(char* buffer, size_t size, size_t count, void* user) {
  auto* up = static_cast<Upload*>(user);
  const size_t n = std::min(size * count, up->data.size() - up->sent);
  std::memcpy(buffer, up->data.data() + up->sent, n);
  up->sent += n;
  return n;
}

}  // namespace

std::string EmailMessage(const Notification& n, const std::string& from, const std::vector<std::string>& to,
                         int64_t now_ms) {
  const std::string domain = from.substr(from.find('@') + 1);
  std::string to_list;
  for (const std::string& address : to) to_list += (to_list.empty() ? "" : ", ") + OneLine(address);
  std::string body = n.text.empty() ? "" : n.text + "\n\n";
  for (const auto& [label, value] : n.facts) body += label + ": " + value + "\n";
  if (!n.link.empty()) body += "\n" + n.link + "\n";
  std::string m;
  m += "Date: " + DateHeader(now_ms) + "\r\n";
  m += "From: " + OneLine(from) + "\r\n";
  m += "To: " + to_list + "\r\n";
  m += "Subject: " + EncodeHeaderText(n.title) + "\r\n";
  m += "Message-ID: <" + Sha256Hex(NotificationToJson(n)).substr(0, 32) + "." + std::to_string(now_ms) + "@" +
       OneLine(domain) + ">\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: text/plain; charset=UTF-8\r\n";
  m += "Content-Transfer-Encoding: 8bit\r\n";
  m += "Auto-Submitted: auto-generated\r\n";
  m += "\r\n" + Crlf(body);
  return m;
}

EmailChannel::EmailChannel(config::AlertChannelConfig config) : config_(std::move(config)) {
  curl_global_init(CURL_GLOBAL_DEFAULT);  // reference-counted; idempotent after the first call
}

Status EmailChannel::Send(const Notification& n) {
  // With CURLOPT_NOSIGNAL libcurl no longer ignores SIGPIPE itself, and
  // OpenSSL writes to a reset socket with write(2).
  action::SigpipeGuard sigpipe_guard;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Internal("smtp: cannot start libcurl");
  const std::string message = EmailMessage(n, config_.from, config_.to, clock_.NowMs());
  Upload upload{message};
  curl_slist* rcpt = nullptr;
  for (const std::string& address : config_.to) rcpt = curl_slist_append(rcpt, ("<" + address + ">").c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> rcpt_guard(rcpt, curl_slist_free_all);
  const std::string url(config_.smtp_url.bytes());
  const std::string mail_from = "<" + config_.from + ">";
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadChunk);
  curl_easy_setopt(c, CURLOPT_READDATA, &upload);
  curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_VERBOSE, 0L);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(config_.timeout_seconds));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(config_.timeout_seconds));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!config_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  const CURLcode code = curl_easy_perform(c);
  if (code == CURLE_OK) return Status::Ok();
  long reply = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply);
  std::string why = "smtp: ";
  if (reply > 0) why += std::to_string(reply) + " ";
  return Unavailable(why + curl_easy_strerror(code));
}

}  // namespace hookinbox::alert
