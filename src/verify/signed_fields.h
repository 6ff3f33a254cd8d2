// verify/signed_fields.h — signatures that travel inside the delivery and
// cover fields rather than the raw body.
//
// Owns: reading the signature from a JSON field, a form field or a query
// parameter (signature.signature_source), the text of one JSON field for
// {field:<pointer>}, and the sorted field join behind {sorted_fields}
// (config::FieldJoinConfig). VNPay, MoMo, ZaloPay and payOS sign this way
// (/work/shared/providers-wave2.md). Numbers are written from the parsed
// value: integers exactly, as received; a fraction in shortest round-trip
// form, which equals the received text for the usual "10.5" but not for
// "10.50" (no preset here signs a fractional number). Pure, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/headers.h"
#include "common/status.h"
#include "config/config.h"

namespace hookinbox::verify {

// Where signature_source points, split: kind "json" | "form" | "query" and
// the pointer or name; nullopt for an empty or malformed source.
struct SignatureSource {
  std::string kind;
  std::string name;
};
std::optional<SignatureSource> ParseSignatureSource(std::string_view source);

// The request parts a source may read. `doc` is the body's JSON parse
// (nullptr when the body is not JSON or the source does not need it).
struct FieldInputs {
  std::string_view body_kind;
  const HeaderView& headers;
  std::string_view body;
  std::string_view query;
  const nlohmann::json* doc;
};

// The signature text at `source` (trimmed), or nullopt when absent, empty
// or not a string. A form body or query that does not parse is
// Unauthenticated("malformed form body" / "malformed query").
Result<std::optional<std::string>> ReadSignatureSource(const SignatureSource& source, const FieldInputs& in);

// A JSON value as signed text: a string as its decoded value, an integer in
// decimal, a fraction in shortest form, true/false, null as `null_as`;
// nullopt for an object or array.
std::optional<std::string> SignedText(const nlohmann::json& v, std::string_view null_as = "");

// {field:<pointer>}: SignedText of the value at `pointer` in `doc`.
// Unauthenticated("missing signed field") when the body is not JSON or the
// value is absent, an object or an array.
Result<std::string> FieldForSigning(const nlohmann::json* doc, std::string_view pointer);

// PHP's urlencode(): ASCII letters, digits and "-_." stay, a space becomes
// '+', every other byte %XX with upper-case hex (VNPay's demo signs this).
std::string PhpUrlEncode(std::string_view s);

// {sorted_fields}: the fields at join.source, filtered (include_prefix,
// exclude, skip_empty), sorted by name bytewise, each written "name=value"
// (or the value alone) and joined with join.separator, names and values
// encoded per join.value_encoding. A repeated name keeps every value, in the
// order received. Unauthenticated when the source cannot be read (a
// malformed form or query, a JSON body without an object at the pointer).
Result<std::string> SortedFieldsForSigning(const config::FieldJoinConfig& join, const FieldInputs& in);

}  // namespace hookinbox::verify
