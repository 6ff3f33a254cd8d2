// POST /admin/api/endpoints/{name}/secret/rotate and …/secret/retire: an
// endpoint's secret_file rotated (the new secret in force, the previous one
// accepted until a given time) or its previous secret dropped now. The flow
// (check, write the files, audit, reload) is the hook's, cli::App's, shared
// with `hookinbox secrets rotate|retire`; without a hook the answer is 503.
// A bad body is refused before the hook is called. The body holds a secret:
// it is never logged or echoed (no refusal quotes it), and the ask's copy is
// wiped when it goes (common/secret.h). See admin/secret_json.h for the shapes.
#include "admin/admin_api.h"
#include "admin/secret_json.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {

void AdminApi::RotateSecret(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  res.set_header("Cache-Control", "no-store");
  const bool retire = route.action == "retire";
  auto ask = ParseSecretAsk(req.body, route.param, retire, clock_.NowMs());
  if (!ask.ok()) return http::ReplyError(res, ask.status());
  // Not ReplyError: its 503 speaks of storage and asks for a retry, which would not help here.
  if (!secret_hook_) {
    return http::ReplyJson(res, http::HttpStatusFor(Code::kUnavailable),
                           R"({"error":"secret rotation is not available"})");
  }
  ask->actor = AdminActor(req);
  log::Info(retire ? "admin_secret_retire_requested" : "admin_secret_rotate_requested",
            {{"endpoint", ask->endpoint}, {"actor", ask->actor}});
  const config::SecretRotateAnswer answer = secret_hook_(*ask);
  http::ReplyJson(
      res, SecretAnswerStatus(answer),
      SecretAnswerJson(ask->endpoint, answer).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace hookinbox::admin
