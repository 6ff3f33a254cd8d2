// store/sql_bind.h — binding values the way every store statement does (internal).
#pragma once

#include "store/sql/sql.h"

#include <cstddef>
#include <optional>
#include <string>

#include "common/status.h"

namespace hookinbox::store {

// Binds text, storing NULL for an empty string so auditors see "absent", not "".
inline void BindText(sql::Statement& st, int index, const std::string& value) {
  if (value.empty()) {
    st.bind(index);
  } else {
    st.bind(index, value);
  }
}

// Binds an optional number, storing NULL when it is absent.
template <typename T>
void BindOptional(sql::Statement& st, int index, const std::optional<T>& value) {
  if (value) {
    st.bind(index, *value);
  } else {
    st.bind(index);
  }
}

// A text column, "" for NULL.
inline std::string Text(const sql::Column& c) { return c.isNull() ? "" : c.getString(); }

// `st` with "what: " before its message: which store operation failed.
inline Status Prefixed(const std::string& what, const Status& st) {
  return Status(st.code(), what + ": " + st.message());
}

// "?first,?first+1,…": n numbered parameters, for an IN list.
inline std::string Placeholders(size_t first, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? ",?" : "?") + std::to_string(first + i);
  return out;
}

// Binds `ids` to the parameters Placeholders(first, ids.size()) named.
template <typename Ids>
void BindIds(sql::Statement& st, size_t first, const Ids& ids) {
  for (size_t i = 0; i < ids.size(); ++i) st.bind(static_cast<int>(first + i), static_cast<int64_t>(ids[i]));
}

}  // namespace hookinbox::store
