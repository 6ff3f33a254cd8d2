#include "admin/auth.h"

#include <catch2/catch.hpp>

#include "common/clock.h"

using namespace hookinbox;
using namespace hookinbox::admin;

TEST_CASE("auth: bearer token parsing", "[admin][auth]") {
  CHECK(BearerToken("Bearer abc") == "abc");
  CHECK(BearerToken("bearer abc") == "abc");
  CHECK(BearerToken("BEARER   abc  ") == "abc");
  CHECK(BearerToken("Basic abc") == "");
  CHECK(BearerToken("Bearer") == "");
  CHECK(BearerToken("Bearer ") == "");
  CHECK(BearerToken("") == "");
}

TEST_CASE("auth: the admin token, a wrong one, none configured, and the block after 10 wrong tokens",
          "[admin][auth]") {
  FakeClock clock(1'000'000);
  LoginLimiter limiter(clock);
  SECTION("not configured: 503 for everyone, nothing counted") {
    AdminAuth auth(Secret(), Secret(), limiter);
    for (int i = 0; i < 20; ++i) CHECK(auth.CheckAdmin("Bearer x", "a").outcome == AuthOutcome::kNotConfigured);
    CHECK(limiter.BlockedForMs("admin a") == 0);
    CHECK(auth.CheckMetrics("", "a").outcome == AuthOutcome::kOk);  // no metrics token: open
  }
  SECTION("configured: wrong tokens block further wrong tokens; the right one is never refused") {
    AdminAuth auth(Secret("s3cret-token"), Secret(), limiter);
    CHECK(auth.CheckAdmin("Bearer s3cret-token", "a").outcome == AuthOutcome::kOk);
    CHECK(auth.CheckAdmin("Bearer s3cret-toke", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(auth.CheckAdmin("Bearer s3cret-tokenX", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(auth.CheckAdmin("s3cret-token", "a").outcome == AuthOutcome::kUnauthorized);  // no scheme
    for (int i = 0; i < 7; ++i) CHECK(auth.CheckAdmin("Bearer no", "a").outcome == AuthOutcome::kUnauthorized);
    AuthDecision d = auth.CheckAdmin("Bearer no", "a");  // 11th wrong token, after 10 failures
    CHECK(d.outcome == AuthOutcome::kTooMany);
    CHECK(d.retry_after_s == 60);
    CHECK(auth.CheckAdmin("Bearer s3cret-token", "a").outcome == AuthOutcome::kOk);  // blocked, yet accepted
    CHECK(auth.CheckAdmin("", "a").outcome == AuthOutcome::kUnauthorized);  // no token: 401, not 429
    CHECK(auth.CheckAdmin("Bearer no", "b").outcome == AuthOutcome::kUnauthorized);
    clock.Advance(30500);
    CHECK(auth.CheckAdmin("Bearer no", "a").retry_after_s == 30);
  }
  SECTION("requests without a token never count") {
    AdminAuth auth(Secret("s3cret-token"), Secret(), limiter);
    for (int i = 0; i < 50; ++i) CHECK(auth.CheckAdmin("", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(limiter.BlockedForMs("admin a") == 0);
    CHECK(auth.CheckAdmin("Bearer no", "a").outcome == AuthOutcome::kUnauthorized);  // the first real failure
  }
  SECTION("scopes are counted apart") {
    AdminAuth auth(Secret("admin-token"), Secret("prom-token"), limiter);
    for (int i = 0; i < 10; ++i) CHECK(auth.CheckMetrics("Bearer no", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(auth.CheckMetrics("Bearer no", "a").outcome == AuthOutcome::kTooMany);
    CHECK(auth.CheckAdmin("Bearer no", "a").outcome == AuthOutcome::kUnauthorized);  // admin: its first failure
    CHECK(RefuseWrongToken(limiter, "handler", "a").outcome == AuthOutcome::kUnauthorized);
  }
  SECTION("a metrics token guards /metrics, and only it opens it") {
    AdminAuth auth(Secret("admin"), Secret("prom"), limiter);
    CHECK(auth.CheckMetrics("Bearer prom", "a").outcome == AuthOutcome::kOk);
    CHECK(auth.CheckMetrics("Bearer admin", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(auth.CheckMetrics("", "a").outcome == AuthOutcome::kUnauthorized);
    CHECK(auth.CheckAdmin("Bearer prom", "a").outcome == AuthOutcome::kUnauthorized);  // not the other way round
  }
}

TEST_CASE("auth: refusals answer 503, 401 with WWW-Authenticate, 429 with Retry-After", "[admin][auth]") {
  httplib::Response a, b, c;
  ReplyRefusal({AuthOutcome::kNotConfigured, 0}, a);
  CHECK(a.status == 503);
  CHECK(a.body == R"({"error":"admin token not configured: set admin.token_env or admin.token_file"})");
  ReplyRefusal({AuthOutcome::kUnauthorized, 0}, b);
  CHECK(b.status == 401);
  CHECK(b.body == R"({"error":"unauthorized"})");
  CHECK(b.get_header_value("WWW-Authenticate") == "Bearer");
  ReplyRefusal({AuthOutcome::kTooMany, 42}, c);
  CHECK(c.status == 429);
  CHECK(c.get_header_value("Retry-After") == "42");
}
