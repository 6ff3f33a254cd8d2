// cli/open_store.h — the one place a command opens the configured store.
//
// Every command that reads or writes events (serve, events, stats, purge,
// reconcile) opens the store here, so which backend a config names is
// decided once: storage.backend = "sqlite" opens the file at storage.path,
// "postgres" connects to storage.url. `init` is not among them: it creates a
// new SQLite installation and opens that file itself.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "config/config.h"
#include "store/sql_store.h"

namespace hookinbox::cli {

// Opens (and migrates) the store `storage` names. Errors are the store's,
// with any password in a PostgreSQL URL left out.
Result<std::unique_ptr<store::SqlStore>> OpenConfiguredStore(const config::StorageConfig& storage);

// Where the store lives, for messages and logs: the SQLite file's path, or
// the PostgreSQL URL with its password replaced (store::sql::RedactConninfo).
std::string StorageLocation(const config::StorageConfig& storage);

}  // namespace hookinbox::cli
