// POST /admin/api/reload: reads the config file again and puts it in force
// (the hook is cli::App's reload; SIGHUP and `hookinbox reload` end there
// too). A bad body is refused before anything is read or changed; without
// a hook (a process that cannot reload) the answer is 503. See admin_api.h
// and admin/reload_json.h for the answer.
#include "admin/admin_api.h"
#include "admin/reload_json.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {

void AdminApi::Reload(const httplib::Request& req, httplib::Response& res) const {
  auto ask = ParseReloadAsk(req.body);
  if (!ask.ok()) return http::ReplyError(res, ask.status());
  // Not ReplyError: its 503 speaks of storage and asks for a retry, which would not help here.
  if (!reload_hook_) {
    return http::ReplyJson(res, http::HttpStatusFor(Code::kUnavailable), R"({"error":"reload is not available"})");
  }
  // Who asked, as pause and replay name them ("admin:<address>"): the reload's
  // log lines and a key change's audit row carry it.
  ask->actor = AdminActor(req);
  log::Info("admin_reload_requested", {{"actor", ask->actor}});
  const config::ReloadAnswer answer = reload_hook_(*ask);
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, ReloadAnswerStatus(answer),
                  ReloadAnswerJson(answer).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace hookinbox::admin
