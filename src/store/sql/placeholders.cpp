#include "store/sql/placeholders.h"

#include <algorithm>
#include <cctype>

namespace hookinbox::store::sql {
namespace {

// The index just past a quoted run that starts at `i` with `quote` (a doubled quote escapes it).
size_t SkipQuoted(std::string_view sql, size_t i, char quote) {
  for (++i; i < sql.size(); ++i) {
    if (sql[i] != quote) continue;
    if (i + 1 < sql.size() && sql[i + 1] == quote) {
      ++i;
      continue;
    }
    return i + 1;
  }
  return sql.size();
}

// The index just past a comment that starts at `i`, or `i` when none does.
size_t SkipComment(std::string_view sql, size_t i) {
  if (sql.substr(i, 2) == "--") {
    size_t end = sql.find('\n', i);
    return end == std::string_view::npos ? sql.size() : end;
  }
  if (sql.substr(i, 2) == "/*") {
    size_t end = sql.find("*/", i + 2);
    return end == std::string_view::npos ? sql.size() : end + 2;
  }
  return i;
}

}  // namespace

Numbered PostgresPlaceholders(std::string_view sql) {
  Numbered out;
  out.sql.reserve(sql.size() + 16);
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    size_t next = i;
    if (c == '\'' || c == '"') {
      next = SkipQuoted(sql, i, c);
    } else if (c == '-' || c == '/') {
      next = SkipComment(sql, i);
    }
    if (next != i) {
      out.sql.append(sql.substr(i, next - i));
      i = next;
      continue;
    }
    if (c != '?') {
      out.sql.push_back(c);
      ++i;
      continue;
    }
    size_t digits = i + 1;
    while (digits < sql.size() && std::isdigit(static_cast<unsigned char>(sql[digits])) != 0) ++digits;
    int number = digits > i + 1 ? std::stoi(std::string(sql.substr(i + 1, digits - i - 1))) : out.parameters + 1;
    out.parameters = std::max(out.parameters, number);
    out.sql += "$" + std::to_string(number);
    i = digits;
  }
  return out;
}

}  // namespace hookinbox::store::sql
