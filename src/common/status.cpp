#include "common/status.h"

namespace hookinbox {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kUnauthenticated: return "unauthenticated";
    case Code::kNotFound: return "not_found";
    case Code::kTooLarge: return "too_large";
    case Code::kUnsupported: return "unsupported_media_type";
    case Code::kNotAllowed: return "method_not_allowed";
    case Code::kRejected: return "rejected";
    case Code::kUnavailable: return "unavailable";
    case Code::kConflict: return "conflict";
    case Code::kInternal: return "internal";
  }
  return "internal";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace hookinbox
