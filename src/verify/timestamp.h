// verify/timestamp.h — RFC 3339 (ISO-8601 profile) timestamps as Unix time.
//
// Owns: reading the date-time text some providers sign or send beside a
// signature (Zendesk's X-Zendesk-Webhook-Signature-Timestamp, PayPal's
// PAYPAL-TRANSMISSION-TIME) and writing one for send-test. Pure functions, no
// clock, no locale, no allocation when parsing; thread-safe.
//
// Accepted: "YYYY-MM-DDTHH:MM:SS" + optional ".fraction" (1 or more digits;
// only milliseconds are kept, the rest is truncated) + a zone: "Z"/"z", or a
// numeric offset "+HH:MM" / "-HH:MM" (also "+HHMM" and "+HH", as ISO-8601
// writes them). 'T' may be 't' or a single space (RFC 3339 §5.6 note).
// Rejected: anything else, including dates that do not exist (2026-02-29,
// 2026-04-31), hours above 23, minutes or seconds above 59, offsets above
// 23:59, a missing zone (local time is ambiguous), and surrounding spaces
// (callers trim). A leap second ":60" is rejected because Unix time has no
// place for it; a delivery stamped in that one second fails its window check
// the same way a skewed clock would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::verify {

// Milliseconds since 1970-01-01T00:00:00Z of an RFC 3339 date-time (years
// 0000–9999, so the result may be negative but never overflows), or nullopt.
std::optional<int64_t> ParseRfc3339Millis(std::string_view text);

// `unix_seconds` as "YYYY-MM-DDTHH:MM:SSZ" (UTC, no fraction). REQUIRES: the
// time falls in years 0000–9999.
std::string FormatRfc3339Utc(int64_t unix_seconds);

}  // namespace hookinbox::verify
