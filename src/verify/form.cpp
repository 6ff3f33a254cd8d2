// Form body parsing; see form.h.
//
// Multipart design: the body is walked once, left to right. Each part's end is
// found with one search for "\r\n--boundary" starting where the part starts,
// and the search never goes back, so the whole walk is O(body × boundary) at
// worst with a boundary of at most 70 bytes — linear in practice. Header
// blocks are bounded on their own, so a part cannot make us scan a huge
// header. Only what RFC 7578 senders produce is accepted: CRLF line ends,
// Content-Disposition: form-data with a name.
#include "verify/form.h"

#include <algorithm>

#include "common/secret.h"
#include "verify/crypto.h"
#include "verify/text.h"
#include "verify/verify.h"

namespace hookinbox::verify {

namespace {

constexpr std::string_view kCrlf = "\r\n";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// '+' → space, %XX → byte; nullopt for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

// The value of parameter `name` (case-insensitive) in a header value such as
// `form-data; name="x"; filename="y"` — quoted (backslash escapes honoured) or
// a bare token. nullopt when absent or malformed.
std::optional<std::string> HeaderParam(std::string_view value, std::string_view name) {
  size_t at = value.find(';');
  while (at != std::string_view::npos) {
    std::string_view rest = TrimSpaces(value.substr(at + 1));
    size_t eq = rest.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view key = TrimSpaces(rest.substr(0, eq));
    std::string_view v = TrimSpaces(rest.substr(eq + 1));
    std::string text;
    size_t consumed = 0;
    if (!v.empty() && v.front() == '"') {
      size_t i = 1;
      for (; i < v.size() && v[i] != '"'; ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) ++i;
        text += v[i];
      }
      if (i >= v.size()) return std::nullopt;  // unclosed quote
      consumed = i + 1;
    } else {
      consumed = std::min(v.find(';'), v.size());
      text = std::string(TrimSpaces(v.substr(0, consumed)));
    }
    if (key.size() == name.size() && StartsWithIgnoreCase(key, name)) return text;
    std::string_view after = v.substr(consumed);
    size_t next = after.find(';');
    if (next == std::string_view::npos) return std::nullopt;
    at = static_cast<size_t>(after.data() - value.data()) + next;
  }
  return std::nullopt;
}

struct PartHeaders {
  std::optional<std::string_view> disposition;
};

// The part's header block (without its final blank line) → Content-Disposition.
Result<PartHeaders> ReadPartHeaders(std::string_view block) {
  PartHeaders out;
  while (!block.empty()) {
    size_t eol = block.find(kCrlf);
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return InvalidArgument("multipart: malformed part header");
    if (StartsWithIgnoreCase(line.substr(0, colon), "Content-Disposition") && colon == 19) {
      if (out.disposition) return InvalidArgument("multipart: repeated Content-Disposition");
      out.disposition = TrimSpaces(line.substr(colon + 1));
    }
  }
  return out;
}

// One part: its headers and content → a field, or nullopt for a file part.
Result<std::optional<FormField>> ReadPart(std::string_view part) {
  std::string_view headers;
  std::string_view content;
  if (part.substr(0, 2) == kCrlf) {
    content = part.substr(2);  // no headers at all: refused below (no disposition)
  } else {
    size_t blank = part.substr(0, kMaxPartHeaderBytes + 4).find("\r\n\r\n");  // only the first bytes are searched
    if (blank == std::string_view::npos || blank > kMaxPartHeaderBytes) {
      return InvalidArgument("multipart: part header block missing its blank line or too long");
    }
    headers = part.substr(0, blank);
    content = part.substr(blank + 4);
  }
  Result<PartHeaders> h = ReadPartHeaders(headers);
  if (!h.ok()) return h.status();
  if (!h->disposition) return InvalidArgument("multipart: part without Content-Disposition");
  std::string_view disposition = *h->disposition;
  std::string_view type = TrimSpaces(disposition.substr(0, disposition.find(';')));
  if (type.size() != 9 || !StartsWithIgnoreCase(type, "form-data")) {
    return InvalidArgument("multipart: Content-Disposition is not form-data");
  }
  std::optional<std::string> name = HeaderParam(disposition, "name");
  if (!name || name->empty()) return InvalidArgument("multipart: part without a name");
  if (HeaderParam(disposition, "filename") || HeaderParam(disposition, "filename*")) {
    return std::optional<FormField>();  // a file: not a text field
  }
  return std::optional<FormField>(FormField{std::move(*name), std::string(content)});
}

}  // namespace

Result<std::vector<FormField>> ParseUrlEncoded(std::string_view body) {
  std::vector<FormField> out;
  while (!body.empty()) {
    size_t amp = body.find('&');
    std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    if (out.size() >= kMaxFormFields) {
      return InvalidArgument("form body has more than " + std::to_string(kMaxFormFields) + " fields");
    }
    size_t eq = pair.find('=');
    std::optional<std::string> name = PercentDecode(pair.substr(0, eq));
    std::optional<std::string> value =
        PercentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!name || !value) return InvalidArgument("form body has a malformed %-escape");
    out.push_back({std::move(*name), std::move(*value)});
  }
  return out;
}

std::optional<std::string> MultipartBoundary(std::string_view content_type) {
  std::string_view type = TrimSpaces(content_type.substr(0, content_type.find(';')));
  if (!StartsWithIgnoreCase(type, "multipart/")) return std::nullopt;
  std::optional<std::string> b = HeaderParam(content_type, "boundary");
  if (!b || b->empty() || b->size() > 70) return std::nullopt;
  return b;
}

Result<std::vector<FormField>> ParseMultipart(std::string_view body, std::string_view boundary) {
  if (boundary.empty() || boundary.size() > 70) return InvalidArgument("multipart: bad boundary");
  const std::string dash = "--" + std::string(boundary);
  const std::string delimiter = "\r\n" + dash;
  // The first delimiter opens the body or follows a preamble line.
  size_t at;
  if (body.substr(0, dash.size()) == dash) {
    at = dash.size();
  } else {
    size_t found = body.find(delimiter);
    if (found == std::string_view::npos) return InvalidArgument("multipart: no opening boundary");
    at = found + delimiter.size();
  }
  std::vector<FormField> out;
  size_t parts = 0;
  for (;;) {
    // After a delimiter: "--" closes the body; else optional padding, then CRLF.
    if (body.substr(at, 2) == "--") return out;
    while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;
    if (body.substr(at, 2) != kCrlf) return InvalidArgument("multipart: malformed boundary line");
    at += 2;
    size_t end = body.find(delimiter, at);
    if (end == std::string_view::npos) return InvalidArgument("multipart: missing closing boundary");
    if (++parts > kMaxFormFields) {
      return InvalidArgument("multipart body has more than " + std::to_string(kMaxFormFields) + " parts");
    }
    Result<std::optional<FormField>> field = ReadPart(body.substr(at, end - at));
    if (!field.ok()) return field.status();
    if (*field) out.push_back(std::move(**field));
    at = end + delimiter.size();
  }
}

bool IsFormBodyKind(std::string_view body_kind) { return body_kind == "form" || body_kind == "multipart"; }

Result<std::vector<FormField>> ReadFormFields(std::string_view body_kind, const HeaderView& headers,
                                              std::string_view body) {
  if (body_kind == "form") return ParseUrlEncoded(body);
  if (body_kind != "multipart") return InvalidArgument("body_kind " + std::string(body_kind) + " has no form fields");
  std::optional<std::string> boundary = MultipartBoundary(headers.Get("Content-Type").value_or(""));
  if (!boundary) return InvalidArgument("multipart body without a boundary in its Content-Type");
  return ParseMultipart(body, *boundary);
}

nlohmann::json FormFieldsAsJson(const std::vector<FormField>& fields) {
  nlohmann::json doc = nlohmann::json::object();
  for (const FormField& f : fields) {
    if (!doc.contains(f.name)) doc[f.name] = f.value;
  }
  return doc;
}

std::string FormFieldPointer(std::string_view name) {
  std::string out = "/";
  for (char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormSortedKv(std::vector<FormField> fields) {
  std::sort(fields.begin(), fields.end(), [](const FormField& a, const FormField& b) {
    return a.name != b.name ? a.name < b.name : a.value < b.value;
  });
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0 && fields[i].name == fields[i - 1].name && fields[i].value == fields[i - 1].value) continue;
    out += fields[i].name;
    out += fields[i].value;
  }
  return out;
}

Result<std::string> FormKvForSigning(std::string_view body_kind, const HeaderView& headers, std::string_view body,
                                     std::string_view query) {
  Result<std::vector<FormField>> params = ParseUrlEncoded(query);
  if (params.ok()) {
    for (const FormField& p : *params) {
      if (p.name != "bodySHA256") continue;
      std::string expected = HexEncode(Sha256(body));
      std::string received = p.value;
      for (char& c : received) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
      if (!ConstantTimeEqual(expected, received)) return Unauthenticated("body hash mismatch");
      return std::string();
    }
  }
  // A JSON body is covered only through bodySHA256 (Twilio); read as a form it
  // would be signed as whatever fields its text happens to decode into.
  if (IsJsonMediaType(headers.Get("Content-Type").value_or(""))) {
    return Unauthenticated("a JSON body must be signed through bodySHA256");
  }
  Result<std::vector<FormField>> fields = ReadFormFields(body_kind, headers, body);
  if (!fields.ok()) return Unauthenticated("malformed form body");
  return FormSortedKv(std::move(fields).value());
}

std::vector<std::string> DefaultPortVariants(std::string_view url) {
  std::string_view scheme_default;
  size_t host_at = 0;
  if (url.substr(0, 8) == "https://") {
    scheme_default = "443";
    host_at = 8;
  } else if (url.substr(0, 7) == "http://") {
    scheme_default = "80";
    host_at = 7;
  } else {
    return {};
  }
  size_t host_end = std::min(url.find_first_of("/?#", host_at), url.size());
  std::string_view authority = url.substr(host_at, host_end - host_at);
  // The port follows the last ':' after any IPv6 literal's closing bracket.
  size_t bracket = authority.rfind(']');
  size_t colon = authority.rfind(':');
  bool has_port = colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
  std::string head(url.substr(0, host_at));
  std::string tail(url.substr(host_end));
  if (!has_port) return {head + std::string(authority) + ":" + std::string(scheme_default) + tail};
  if (authority.substr(colon + 1) != scheme_default) return {};
  return {head + std::string(authority.substr(0, colon)) + tail};
}

namespace {

// The field a one-segment pointer "/Name" or a "form:Name" part names; "" for anything else.
std::string FieldNameOf(const std::string& source) {
  if (source.rfind(config::kFormField, 0) == 0) return source.substr(config::kFormField.size());
  if (source.size() > 1 && source[0] == '/' && source.find('/', 1) == std::string::npos) {
    std::string name;
    for (size_t i = 1; i < source.size(); ++i) {
      if (source[i] == '~' && i + 1 < source.size()) {
        name += source[++i] == '1' ? '/' : '~';
      } else {
        name += source[i];
      }
    }
    return name;
  }
  return "";
}

}  // namespace

std::string SampleFormBody(const config::EndpointConfig& e, std::string_view event_type, std::string_view id) {
  std::vector<FormField> fields;
  auto add = [&fields](const std::string& name, std::string value) {
    if (name.empty()) return;
    for (const FormField& f : fields) {
      if (f.name == name) return;
    }
    fields.push_back({name, std::move(value)});
  };
  add(FieldNameOf(e.key.id_pointer), std::string(id));
  int part = 0;
  for (const std::string& f : e.key.fields) add(FieldNameOf(f), std::string(id) + "_" + std::to_string(++part));
  // Where the type is also a key field (Acuity's action) it carries the type,
  // as in the JSON sample; the other fields keep the key unique.
  const std::string type_field = FieldNameOf(e.key.event_type_pointer);
  for (FormField& f : fields) {
    if (!type_field.empty() && f.name == type_field) f.value = std::string(event_type);
  }
  add(type_field, std::string(event_type));
  add("hookinbox", "send-test");
  add("endpoint", e.name);
  std::string out;
  if (e.signature.body_kind == "multipart") {
    for (const FormField& f : fields) {
      out += "--" + std::string(kSampleBoundary) + "\r\nContent-Disposition: form-data; name=\"" + f.name + "\"\r\n\r\n" +
             f.value + "\r\n";
    }
    return out + "--" + std::string(kSampleBoundary) + "--\r\n";
  }
  for (const FormField& f : fields) {
    if (!out.empty()) out += '&';
    out += PercentEncode(f.name) + "=" + PercentEncode(f.value);
  }
  return out;
}

std::string FormContentType(std::string_view media_type, std::string_view body) {
  if (!StartsWithIgnoreCase(media_type, "multipart/") || body.substr(0, 2) != "--") return std::string(media_type);
  std::string_view boundary = body.substr(2, body.find(kCrlf) == std::string_view::npos ? body.npos : body.find(kCrlf) - 2);
  return std::string(media_type) + "; boundary=\"" + std::string(boundary) + "\"";
}

}  // namespace hookinbox::verify
