// fuzz_json_pointer — JSON Pointer evaluation over a received document:
// verify::IsValidJsonPointer, FindPointer, RemovePointers (volatile_fields,
// redact), RawArrayElements (a batch's events, stored byte for byte) and
// ComparableVersion (the ordering guard's version).
//
// Input: pointers, one per line | the JSON document.
// Properties (abort() on violation):
//  * FindPointer finds something only for a valid pointer;
//  * RawArrayElements returns views inside the text, each of which parses;
//    when FindPointer names an array and the counts agree, element i of both
//    is the same value unless a member on the path is named twice (the
//    parser keeps the last, the raw walk the first: IdentifyBatch refuses
//    that, see fuzz_verify);
//  * after RemovePointers, a removed member (a pointer with no numeric or "*"
//    segment, so no array shifted under it) is gone, and the document still
//    serialises;
//  * ComparableVersion of an integer is that integer, of anything outside
//    int64 nullopt (never wrapped).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "verify/json.h"
#include "verify/semantic_keys.h"

namespace {

using nlohmann::json;

bool Inside(std::string_view outer, std::string_view inner) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

// True when a pointer has a segment that is all digits or "*": removing it
// may shift an array, so "absent afterwards" is not a property of it.
bool HasIndexSegment(std::string_view pointer) {
  size_t at = 0;
  while (at < pointer.size()) {
    size_t next = pointer.find('/', at + 1);
    std::string_view seg = pointer.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1);
    bool digits = !seg.empty() && seg.find_first_not_of("0123456789") == std::string_view::npos;
    if (digits || seg == "*" || seg == "-") return true;
    if (next == std::string_view::npos) break;
    at = next;
  }
  return false;
}

// True when some object in `text` (valid JSON) names a member twice.
bool HasDuplicateKeys(std::string_view text) {
  size_t duplicates = 0;
  // A SAX walk sees every member as written, before the parser keeps one per name.
  struct Sax : nlohmann::json_sax<json> {
    std::vector<std::set<std::string>> keys;
    size_t* dup;
    explicit Sax(size_t* d) : dup(d) {}
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
      keys.emplace_back();
      return true;
    }
    bool key(string_t& k) override {
      *dup += keys.back().insert(k).second ? 0 : 1;
      return true;
    }
    bool end_object() override {
      keys.pop_back();
      return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  } sax(&duplicates);
  (void)json::sax_parse(text, &sax);
  return duplicates > 0;
}

void CheckRawElements(std::string_view text, const json& doc, const std::string& pointer) {
  using namespace hookinbox::verify;
  using hookinbox::fuzz::Check;
  const json* target = FindPointer(doc, pointer);
  auto raw = RawArrayElements(text, pointer);
  if (!raw) {
    Check(target == nullptr || !target->is_array() || HasDuplicateKeys(text),
          "FindPointer names an array that RawArrayElements misses");
    return;
  }
  for (std::string_view element : *raw) {
    Check(Inside(text, element), "a raw element lies outside the text");
    Check(ParseJson(element).ok(), "a raw element does not parse");
  }
  if (target == nullptr || !target->is_array() || HasDuplicateKeys(text)) return;
  Check(raw->size() == target->size(), "RawArrayElements count differs from the parsed array");
  for (size_t i = 0; i < raw->size(); ++i) {
    Check(CanonicalJson(*ParseJson((*raw)[i])) == CanonicalJson((*target)[i]), "a raw element differs from the parsed one");
  }
}

void CheckVersion(const json& value) {
  auto v = hookinbox::verify::ComparableVersion(value);
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
      hookinbox::fuzz::Check(!v.has_value(), "ComparableVersion wrapped an integer above INT64_MAX");
    } else {
      hookinbox::fuzz::Check(v.has_value() && *v == value.get<int64_t>(), "ComparableVersion changed an integer");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox::verify;
  using hookinbox::fuzz::Check;
  auto parts = hookinbox::fuzz::SplitParts(hookinbox::fuzz::AsText(data, size), 2);
  std::vector<std::string> pointers;
  for (std::string_view line : hookinbox::fuzz::Lines(parts[0])) pointers.emplace_back(line);
  const std::string_view text = parts[1];
  auto doc = ParseJson(text);
  if (!doc.ok()) {
    for (const auto& p : pointers) (void)RawArrayElements(text, p);  // must not crash on refused text either
    return 0;
  }
  for (const std::string& p : pointers) {
    const json* found = FindPointer(*doc, p);
    Check(found == nullptr || IsValidJsonPointer(p), "FindPointer resolved an invalid pointer");
    if (found != nullptr) CheckVersion(*found);
    CheckRawElements(text, *doc, p);
  }
  json removed = *doc;
  RemovePointers(removed, pointers);
  (void)CanonicalJson(removed);
  for (const std::string& p : pointers) {
    if (p.empty() || !IsValidJsonPointer(p) || HasIndexSegment(p)) continue;
    Check(FindPointer(removed, p) == nullptr, "RemovePointers left a member in place");
  }
  return 0;
}
