// tests/support/pg_schema.h — a PostgreSQL schema of a test's own.
//
// Tests share one PostgreSQL database (HOOKINBOX_TEST_PG_URL) and run in
// parallel: each store fixture and each integration Installation works in a
// schema with a random name, reached by a URL whose search_path names it.
#pragma once

#include <string>

namespace hookinbox::testing {

// `prefix` and 16 random hex digits: a valid unquoted schema name.
std::string UniqueSchemaName(const std::string& prefix);

// `url` with the session's search_path set to `schema` (libpq's options
// parameter) and `schema` as application_name, so a test can find its own
// sessions in pg_stat_activity.
std::string WithSearchPath(const std::string& url, const std::string& schema);

}  // namespace hookinbox::testing
