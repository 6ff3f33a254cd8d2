// store/sql/placeholders.h — SQLite's `?` parameters in PostgreSQL's `$n` form.
#pragma once

#include <string>
#include <string_view>

namespace hookinbox::store::sql {

struct Numbered {
  std::string sql;  // `?` → `$n` (a bare `?` takes the largest number so far + 1, as in SQLite; `?N` → `$N`)
  int parameters = 0;  // the largest number used
};

// Leaves string literals, quoted identifiers and comments alone.
Numbered PostgresPlaceholders(std::string_view sql);

}  // namespace hookinbox::store::sql
