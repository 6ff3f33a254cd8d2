// common/status.h — the error currency of every module.
//
// Owns: Status (a code plus a human message) and Result<T> (a value or a Status).
// Every public function below the CLI returns one of these; exceptions from
// third-party libraries are caught at the module edge and turned into a Status
// with context ("claim: database is locked"). Mapping a Status to an HTTP code
// lives only in http/respond.cpp, to an exit code only in cli/exit_code.cpp.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hookinbox {

enum class Code {
  kOk,
  kInvalidArgument,   // the input is malformed (bad body, bad id, bad config)
  kUnauthenticated,   // signature/token missing or wrong, timestamp outside tolerance
  kNotFound,          // unknown endpoint, tenant, row
  kTooLarge,          // body over the limit
  kUnsupported,       // wrong media type
  kNotAllowed,        // wrong method
  kRejected,          // policy says no (event type not allowed)
  kUnavailable,       // storage busy, full or closed: the caller may retry
  kConflict,
  kInternal,
};

// Stable lower-case name of a code, used in logs and audit rows ("unauthenticated").
const char* CodeName(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "code: message", for logs and CLI output.
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status Unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status TooLarge(std::string m) { return {Code::kTooLarge, std::move(m)}; }
inline Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
inline Status NotAllowed(std::string m) { return {Code::kNotAllowed, std::move(m)}; }
inline Status Rejected(std::string m) { return {Code::kRejected, std::move(m)}; }
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

// A value or the Status that explains why there is none. Never holds an ok Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {           // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace hookinbox
