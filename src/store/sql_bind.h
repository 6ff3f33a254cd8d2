// store/sql_bind.h — binding values the way every store statement does (internal).
#pragma once

#include "store/sql/sql.h"

#include <string>

namespace hookinbox::store {

// Binds text, storing NULL for an empty string so auditors see "absent", not "".
inline void BindText(sql::Statement& st, int index, const std::string& value) {
  if (value.empty()) {
    st.bind(index);
  } else {
    st.bind(index, value);
  }
}

}  // namespace hookinbox::store
