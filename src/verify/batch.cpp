// IdentifyBatch(): one delivery that carries several events (HubSpot and
// SendGrid post an array, Meta an "entry" array) becomes one identity per
// element. Each element is identified by IdentifyParsed with the same rules
// as a whole body, so a batch event and a single delivery of the same event
// get the same key and payload hash.
#include <string>

#include "verify/identity.h"
#include "verify/json.h"
#include "verify/verify.h"

namespace hookinbox::verify {

namespace {

// The most events one delivery may carry: HubSpot sends up to 100, Meta up to
// 1000 changes; more is a mistake or an attack on the claim transaction.
constexpr size_t kMaxBatchEvents = 1000;

std::string Where(const config::KeyConfig& key) {
  return key.batch_pointer.empty() ? "the body" : key.batch_pointer;
}

}  // namespace

Result<std::vector<BatchEvent>> IdentifyBatch(const config::EndpointConfig& endpoint, const HeaderView& headers,
                                              std::string_view body) {
  const config::KeyConfig& key = endpoint.key;
  Result<nlohmann::json> doc = ParseJson(body);
  if (!doc.ok()) return doc.status();
  nlohmann::json* array = const_cast<nlohmann::json*>(FindPointer(*doc, key.batch_pointer));
  if (array == nullptr || !array->is_array()) return InvalidArgument("batch: " + Where(key) + " is not an array");
  if (array->empty()) return InvalidArgument("batch: " + Where(key) + " holds no events");
  if (array->size() > kMaxBatchEvents) {
    return InvalidArgument("batch: more than " + std::to_string(kMaxBatchEvents) + " events");
  }
  // A member named twice on the path: the parser kept the last, the raw walk
  // finds the first, so the two arrays may differ in length too. That is the
  // sender's malformed body (400), not our fault (it was a 500: fuzz_receive,
  // tests/fuzz/regress/fuzz_receive/meta-entry-named-twice).
  std::optional<std::vector<std::string_view>> raw = RawArrayElements(body, key.batch_pointer);
  if (!raw || raw->size() != array->size()) {
    return InvalidArgument("batch: a member on the path to " + Where(key) + " is named more than once");
  }

  std::vector<BatchEvent> events;
  events.reserve(raw->size());
  for (size_t i = 0; i < raw->size(); ++i) {
    // A member named twice on the path: the parser kept the last, the raw walk
    // found the first. Refused, so no event is stored with another's bytes.
    Result<nlohmann::json> element = ParseJson((*raw)[i]);
    if (!element.ok() || *element != (*array)[i]) {
      return InvalidArgument("batch: a member on the path to " + Where(key) + " is named more than once");
    }
    Result<EventIdentity> identity = IdentifyParsed(endpoint, headers, (*raw)[i], &(*array)[i]);
    if (!identity.ok()) {
      return Status(identity.status().code(), "batch event " + std::to_string(i) + ": " + identity.status().message());
    }
    events.push_back({std::move(identity).value(), (*raw)[i]});
  }
  return events;
}

}  // namespace hookinbox::verify
