// store/snapshot_readme.h — the text of the `README` table written into every
// snapshot (internal to the store; snapshot.cpp and its test use it).
//
// The descriptions live in one table in snapshot_readme.cpp. A unit test
// checks that every table and view of the live schema has one, so a migration
// that adds a table without describing it fails the build's tests.
#pragma once

#include <string_view>
#include <vector>

namespace hookinbox::store {

struct ReadmeEntry {
  std::string_view name;         // table or view name as in sqlite_master
  std::string_view description;  // one or two sentences for an auditor
};

// Every described table and view, in the order the README table lists them.
const std::vector<ReadmeEntry>& ReadmeEntries();

// The description of `name`, or an empty view when there is none.
std::string_view ReadmeDescription(std::string_view name);

}  // namespace hookinbox::store
