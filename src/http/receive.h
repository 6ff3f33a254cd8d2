// http/receive.h — POST /hooks/{endpoint}[/{tenant}], SPEC §3.
//
// Owns: the receive path, in named steps — route, screen, read, authenticate,
// identify, claim, reply — and the delivery-audit row every request to
// /hooks/… gets, whatever its fate. The 2xx is written only after the store
// says the claim is durable (store/ingest.h); until then nothing is promised.
// Config: each request takes one snapshot of the config in force
// (config::LiveConfig::Current) when it starts and uses it to its end —
// route, screen, verify with that snapshot's secrets, identify, claim, audit
// and metrics labels — so a request that started before a reload finishes
// on the old config while new requests see the new one.
// Thread-safety: handlers run concurrently on the server's threads; the
// Receiver holds only constant state (LiveConfig is thread-safe).
#pragma once

#include <httplib.h>

#include <functional>

#include "common/clock.h"
#include "config/config.h"
#include "config/live.h"
#include "store/ingest.h"

namespace hookinbox::http {

class Receiver {
 public:
  // `on_accepted` (may be empty) is called with the endpoint's name after a
  // claim stored a new event.
  // `live` must outlive the Receiver.
  Receiver(const config::LiveConfig& live, store::Ingest& store, const Clock& clock,
           std::function<void(const std::string&)> on_accepted = {})
      : live_(live), store_(store), clock_(clock), on_accepted_(std::move(on_accepted)) {}

  // POST on /hooks/…; reads the body itself so the endpoint's limit applies
  // while reading, not after buffering whatever a client sends.
  void HandlePost(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) const;

  // Any other method on /hooks/…: 404 for an unknown endpoint; a GET to an
  // endpoint whose provider delivers by GET (VNPay) is received like a POST,
  // its query string as a form body; a GET handshake is answered; else 405.
  void HandleOtherMethod(const httplib::Request& req, httplib::Response& res) const;

  // Backstop for SPEC §9 "every request to /hooks/… gets one row": called
  // from the server's logger after every answer, on the thread that handled
  // the request; records answers the HTTP library produced without reaching
  // a handler (e.g. a malformed body or header).
  void AuditIfUnrecorded(const httplib::Request& req, const httplib::Response& res) const;

 private:
  const config::LiveConfig& live_;
  store::Ingest& store_;
  const Clock& clock_;
  const std::function<void(const std::string&)> on_accepted_;
};

}  // namespace hookinbox::http
