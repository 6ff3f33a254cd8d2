// fuzz_form — form bodies (signature.body_kind form | multipart, Twilio's
// {form_sorted_kv}): verify::ParseUrlEncoded, MultipartBoundary,
// ParseMultipart, FormKvForSigning, FormFieldsAsJson/FormFieldPointer and
// DefaultPortVariants.
//
// Input: content-type | query | body.
// Properties (abort() on violation): at most kMaxFormFields fields; the
// pointer FormFieldPointer gives for a field finds that field's first value
// in FormFieldsAsJson (how key.fields "form:<name>" reads it); a boundary is
// 1–70 bytes. Quadratic time shows up as a libFuzzer timeout (run.sh passes
// -timeout).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/headers.h"
#include "fuzz_input.h"
#include "verify/form.h"
#include "verify/json.h"

namespace {

using namespace hookinbox::verify;
using hookinbox::fuzz::Check;

void CheckFields(const std::vector<FormField>& fields) {
  Check(fields.size() <= kMaxFormFields, "more than kMaxFormFields fields");
  const nlohmann::json obj = FormFieldsAsJson(fields);
  for (const FormField& f : fields) {
    const nlohmann::json* v = FindPointer(obj, FormFieldPointer(f.name));
    Check(v != nullptr && v->is_string(), "FormFieldPointer does not find its field");
  }
  if (!fields.empty()) {
    const nlohmann::json* first = FindPointer(obj, FormFieldPointer(fields.front().name));
    Check(first != nullptr && *first == fields.front().value, "a repeated name did not keep its first value");
  }
  (void)FormSortedKv(fields);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = hookinbox::fuzz::SplitParts(hookinbox::fuzz::AsText(data, size), 3);
  const std::string content_type(parts[0]), query(parts[1]), body(parts[2]);

  if (auto fields = ParseUrlEncoded(body); fields.ok()) CheckFields(*fields);
  auto boundary = MultipartBoundary(content_type);
  if (boundary) Check(!boundary->empty() && boundary->size() <= 70, "a boundary outside 1-70 bytes");
  if (auto fields = ParseMultipart(body, boundary ? *boundary : std::string("b")); fields.ok()) CheckFields(*fields);

  hookinbox::MapHeaders headers;
  headers.Set("Content-Type", content_type);
  for (const char* kind : {"form", "multipart"}) {
    if (auto kv = FormKvForSigning(kind, headers, body, query); kv.ok()) (void)kv->size();
  }
  // A variant of a variant is the original spelling: the two name one URL.
  // Only for a plain host[:port]: public_url, which config validates, is the
  // part before the query, so a ':' inside the host is not a sender's input.
  const std::string_view authority = std::string_view(query).substr(0, query.find_first_of("/?#", 8));
  const bool plain_host = std::count(authority.begin(), authority.end(), ':') <= 2 && authority.find('[') == std::string_view::npos;
  for (const std::string& v : plain_host ? DefaultPortVariants(query) : std::vector<std::string>{}) {
    bool back = false;
    for (const std::string& w : DefaultPortVariants(v)) back = back || w == query;
    Check(back, "DefaultPortVariants is not symmetric");
  }
  return 0;
}
