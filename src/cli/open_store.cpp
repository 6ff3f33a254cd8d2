#include "cli/open_store.h"

#include "store/sql/pg_connection.h"

namespace hookinbox::cli {

Result<std::unique_ptr<store::SqlStore>> OpenConfiguredStore(const config::StorageConfig& storage) {
  if (storage.backend == "postgres") {
    return store::SqlStore::OpenPostgres(
        {storage.url, storage.busy_timeout_ms, storage.max_batch, storage.pool_size});
  }
  return store::SqlStore::Open({storage.path, storage.busy_timeout_ms, storage.max_batch});
}

std::string StorageLocation(const config::StorageConfig& storage) {
  if (storage.backend == "postgres") return store::sql::RedactConninfo(storage.url);
  return storage.path;
}

}  // namespace hookinbox::cli
