// fuzz_timestamp — verify::ParseRfc3339Millis (Zendesk's and PayPal's signed
// times) and FormatRfc3339Utc.
// Properties (abort() on violation):
//  * an accepted time lies in years 0000–9999;
//  * formatting it (whole seconds) and parsing again gives the same second;
//  * the parser never accepts surrounding spaces (callers trim).
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "verify/timestamp.h"

namespace {

// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, plus a day of offsets either side.
constexpr int64_t kMinMs = -62167219200000 - 86400000;
constexpr int64_t kMaxMs = 253402300799999 + 86400000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox::verify;
  using hookinbox::fuzz::Check;
  const std::string_view text = hookinbox::fuzz::AsText(data, size);
  auto ms = ParseRfc3339Millis(text);
  if (!ms) return 0;
  Check(*ms >= kMinMs && *ms <= kMaxMs, "accepted a time outside years 0000-9999");
  Check(!text.empty() && text.front() != ' ' && text.back() != ' ', "accepted surrounding spaces");
  const int64_t secs = FloorDiv(*ms, 1000);
  // Offsets may carry a time a day past the range; format only what FormatRfc3339Utc promises.
  if (secs < -62167219200 || secs > 253402300799) return 0;
  auto again = ParseRfc3339Millis(FormatRfc3339Utc(secs));
  Check(again.has_value() && *again == secs * 1000, "format then parse is not the same second");
  return 0;
}
