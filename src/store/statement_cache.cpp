#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

thread_local StatementCache* t_cache = nullptr;

// The store's statements are a few dozen texts (some built with a placeholder
// per id); past this many, new texts are prepared per use, not kept.
constexpr size_t kMaxEntries = 256;

}  // namespace

StatementCache::StatementCache(sql::Connection& db) : db_(db), previous_(t_cache) { t_cache = this; }

StatementCache::~StatementCache() {
  if (t_cache == this) t_cache = previous_;
}

StatementCache* StatementCache::For(sql::Connection& db) {
  return t_cache != nullptr && &t_cache->db_ == &db ? t_cache : nullptr;
}

Prepared::Prepared(sql::Connection& db, const std::string& sql) {
  if (StatementCache* cache = StatementCache::For(db)) {
    auto it = cache->entries_.find(sql);
    if (it == cache->entries_.end() && cache->entries_.size() < kMaxEntries) {
      it = cache->entries_.emplace(sql, StatementCache::Entry{}).first;
    }
    if (it != cache->entries_.end() && !it->second.in_use) {
      StatementCache::Entry& entry = it->second;
      if (!entry.statement) entry.statement = db.Prepare(sql);
      entry.in_use = true;
      entry_ = &entry;
      statement_ = entry.statement.get();
      return;
    }
  }
  own_ = db.Prepare(sql);
  statement_ = own_.get();
}

Prepared::~Prepared() {
  if (entry_ == nullptr) return;
  statement_->reset();
  statement_->clearBindings();
  entry_->in_use = false;
}

}  // namespace hookinbox::store
