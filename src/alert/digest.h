// alert/digest.h — the daily digest: one message a day, at alert.digest_at
// (the host's local time; the TZ environment variable is respected), about
// the local day before — what arrived, what was processed, duplicates
// absorbed, what failed and what waits, and the incidents — in plain words,
// with a link to the admin UI.
//
// ComposeDigest is pure (tests seed the figures); the figures come from
// store::AlertSignals::ReadDayFigures and store::Incidents. The engine
// (alert/engine.h) asks DigestSchedule at every check and queues the digest
// with Incidents::QueueDigest, which queues a day once across replicas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alert/notification.h"
#include "store/alert_signals.h"
#include "store/incidents.h"

namespace hookinbox::alert {

// A local calendar day: "2026-12-02" and its [from_ms, to_ms) (23 or 25 hours around a DST change).
struct LocalDay {
  std::string day;
  int64_t from_ms = 0, to_ms = 0;
};

// The local day before the one `now_ms` falls in.
LocalDay DayBefore(int64_t now_ms);
// Minutes after local midnight of "HH:MM"; nullopt when it is not a time of day.
std::optional<int> ParseTimeOfDay(const std::string& hh_mm);

// When a digest is due. Not thread-safe (the engine's checking thread owns it).
class DigestSchedule {
 public:
  // The day whose digest is due at `now_ms`: the day before, once the local
  // time has reached `digest_at` and that day was not handed out yet.
  // nullopt otherwise, and when digest_at is "" or not a time.
  std::optional<LocalDay> Due(const std::string& digest_at, int64_t now_ms) const;
  void Done(const std::string& day) { last_day_ = day; }

 private:
  std::string last_day_;  // the last day queued (or found already queued by another replica)
};

struct DigestInput {
  LocalDay day;
  store::DayFigures figures;
  std::vector<store::Incident> open_now;    // incidents still open when the digest is composed
  std::vector<store::Incident> of_the_day;  // incidents that started that day (open or resolved since)
  std::string ui_url;                       // "" = no link
  int64_t now_ms = 0;
};

// The digest message (kind digest): a title naming the day and the figures in words.
Notification ComposeDigest(const DigestInput& in);

}  // namespace hookinbox::alert
