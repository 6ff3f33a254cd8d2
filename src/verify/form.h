// verify/form.h — the fields of form bodies (signature.body_kind form | multipart).
//
// Owns: reading application/x-www-form-urlencoded and multipart/form-data
// bodies into (name, value) pairs, for the [endpoint.key] sources and the
// {form_sorted_kv} placeholder (Twilio signs its form parameters sorted by
// name). Both parsers are single passes with fixed limits, so a hostile body
// costs time linear in its size; anything malformed is InvalidArgument, never
// a best guess, because a guessed field would give one event two keys.
// Pure functions, thread-safe; the views returned point into nothing (values
// are decoded copies).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/headers.h"
#include "common/status.h"
#include "config/config.h"

namespace hookinbox::verify {

struct FormField {
  std::string name;
  std::string value;
};

// Most fields one form body may carry; a Twilio callback has a few dozen.
inline constexpr size_t kMaxFormFields = 1000;
// Most bytes of one multipart part's header block (Content-Disposition and friends).
inline constexpr size_t kMaxPartHeaderBytes = 8192;

// application/x-www-form-urlencoded: pairs split on '&' (empty pieces
// skipped), name and value split at the first '=' (none: empty value), '+' is
// a space and %XX a byte. A '%' not followed by two hex digits, or more than
// kMaxFormFields pairs, is InvalidArgument. Repeated names are kept, in order.
Result<std::vector<FormField>> ParseUrlEncoded(std::string_view body);

// The boundary parameter of a multipart Content-Type value (quotes removed),
// or nullopt when absent, empty, longer than 70 bytes (RFC 2046) or not a
// multipart type.
std::optional<std::string> MultipartBoundary(std::string_view content_type);

// multipart/form-data (RFC 7578) delimited by `boundary`: the text fields, in
// order. Parts are separated by CRLF "--boundary" lines and end with
// "--boundary--"; each needs Content-Disposition: form-data with a name. A
// part with a filename (a file upload) is skipped. Missing delimiters, a
// header block without its blank line or over kMaxPartHeaderBytes, a part
// without a name, or more than kMaxFormFields parts are InvalidArgument.
Result<std::vector<FormField>> ParseMultipart(std::string_view body, std::string_view boundary);

// The fields of `body` read as `body_kind` ("form" or "multipart"; the
// boundary comes from the Content-Type in `headers`). InvalidArgument for
// another kind, a missing boundary, or a body its parser refuses.
Result<std::vector<FormField>> ReadFormFields(std::string_view body_kind, const HeaderView& headers,
                                              std::string_view body);

// True for the body kinds whose fields are form fields.
bool IsFormBodyKind(std::string_view body_kind);

// The fields as a JSON object of strings, so a one-segment JSON Pointer
// ("/MessageSid") names a field; a repeated name keeps its first value.
nlohmann::json FormFieldsAsJson(const std::vector<FormField>& fields);

// The JSON Pointer that names field `name` in FormFieldsAsJson's object
// ("/" + name, with '~' and '/' escaped as RFC 6901 says): what a
// key.fields entry "form:<name>" stands for.
std::string FormFieldPointer(std::string_view name);

// {form_sorted_kv}: every field sorted by name (bytewise), each written as
// name immediately followed by value; a repeated name contributes each of its
// distinct values, sorted — as twilio-node's getExpectedTwilioSignature
// builds it (it de-duplicates a repeated name's values with a Set).
std::string FormSortedKv(std::vector<FormField> fields);

// What {form_sorted_kv} stands for in a delivery (Verify and send-test):
// when `query` carries bodySHA256=<hex> (Twilio's JSON bodies), the signed
// URL covers the body through that hash, so the body's SHA-256 must equal it
// and the value is "" — Unauthenticated("body hash mismatch") otherwise;
// else the form fields of `body` read as `body_kind`, sorted (FormSortedKv).
// A body that does not parse is Unauthenticated("malformed form body").
Result<std::string> FormKvForSigning(std::string_view body_kind, const HeaderView& headers, std::string_view body,
                                     std::string_view query);

// The other spellings of an http(s) URL's default port that name the same
// URL: "https://h/p" → {"https://h:443/p"}, "https://h:443/p" → {"https://h/p"};
// empty for another port or a URL that is not http(s). twilio-node checks
// both spellings because Twilio does not sign them consistently.
std::vector<std::string> DefaultPortVariants(std::string_view url);

// send-test's sample form body for `endpoint` (body_kind form or multipart):
// `id` at each form field the key reads (key.id_pointer, and the JSON-Pointer
// or "form:" parts of key.fields, each suffixed with its position),
// `event_type` at key.event_type_pointer, and two descriptive fields. A
// multipart sample is delimited by kSampleBoundary.
inline constexpr std::string_view kSampleBoundary = "hookinbox-send-test-7f3a9c";
std::string SampleFormBody(const config::EndpointConfig& endpoint, std::string_view event_type, std::string_view id);

// The Content-Type to send `body` with, for a multipart endpoint: the media
// type plus "; boundary=…" taken from the body's first line ("--boundary").
// Other types are returned as given.
std::string FormContentType(std::string_view media_type, std::string_view body);

}  // namespace hookinbox::verify
