// config/rotation: the files beside a secret_file F — reading F.rotation,
// writing a rotation (F.previous, F.rotation, F, with their modes), undoing
// it, and removing it.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "config/rotation.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::config;
using hookinbox::testing::TempDir;

namespace {

constexpr int64_t kUntil = 1796860800000;  // 2026-12-10T00:00:00Z

constexpr auto Read = &hookinbox::testing::ReadWholeFile;
constexpr auto Exists = &hookinbox::testing::PathExists;
constexpr auto ModeOf = &hookinbox::testing::FileMode;

// F = dir/demo.secret with `bytes` and `mode`.
std::string DemoSecret(const TempDir& dir, const std::string& bytes, mode_t mode = 0600) {
  std::string path = dir.Write("demo.secret", bytes);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

}  // namespace

TEST_CASE("rotation: the files beside F are F.previous and F.rotation", "[config][rotation]") {
  CHECK(PreviousSecretFile("/etc/hookinbox/demo.secret") == "/etc/hookinbox/demo.secret.previous");
  CHECK(RotationStateFile("/etc/hookinbox/demo.secret") == "/etc/hookinbox/demo.secret.rotation");
}

TEST_CASE("rotation: ReadRotation without a state file is none", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret\n");
  auto r = ReadRotation(f);
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
  // A previous file alone is never read as a rotation.
  dir.Write("demo.secret.previous", "older\n");
  r = ReadRotation(f);
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
}

TEST_CASE("rotation: ReadRotation reads one previous_until line, comments and blank lines aside",
          "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "s\n");
  for (const std::string text :
       {"previous_until = \"2026-12-10T00:00:00Z\"\n", "previous_until=\"2026-12-10T00:00:00Z\"",
        "# written by hookinbox\n\nprevious_until = \"2026-12-10T00:00:00Z\"\n\n",
        "previous_until = \"2026-12-10T00:00:00Z\"\r\n"}) {
    INFO(text);
    dir.Write("demo.secret.rotation", text);
    auto r = ReadRotation(f);
    REQUIRE(r.ok());
    REQUIRE(r->has_value());
    CHECK((*r)->previous_until_ms == kUntil);
  }
}

TEST_CASE("rotation: a malformed state file is an error naming it", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "s\n");
  for (const std::string text : {
           "",                                                                                        // no line
           "until = \"2026-12-10T00:00:00Z\"\n",                                                      // wrong key
           "previous_until = \"2026-12-10T00:00:00Z\"\nprevious_until = \"2026-12-11T00:00:00Z\"\n",  // two
           "previous_until = \"2026-02-31T00:00:00Z\"\n",                                             // no such day
           "previous_until = \"2026-12-10T24:00:00Z\"\n",                                             // no such hour
           "previous_until = \"2026-12-10T00:00:61Z\"\n",                                             // no such second
           "previous_until = \"2026-12-10T00:00:00Z\" junk\n",                                        // trailing junk
           "previous_until = \"2026-12-10T00:00:00+01:00\"\n",                                        // not UTC
           "previous_until = \"2026-12-10\"\n",                                                       // a date only
           "previous_until = \"1970-01-01T00:00:00Z\"\n",  // the epoch: no time
       }) {
    INFO(text);
    dir.Write("demo.secret.rotation", text);
    auto r = ReadRotation(f);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::Contains(RotationStateFile(f)));
    CHECK_THAT(r.status().message(), Catch::Contains("previous_until = \"YYYY-MM-DDTHH:MM:SSZ\""));
  }
}

TEST_CASE("rotation: a state file that cannot be read is an error naming it", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "s\n");
  REQUIRE(::mkdir(RotationStateFile(f).c_str(), 0700) == 0);  // unreadable as a file, even for root
  auto r = ReadRotation(f);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::Contains("cannot read the rotation state " + RotationStateFile(f)));
}

TEST_CASE("rotation: WriteRotation keeps F's bytes in F.previous with F's mode, and F gets the new ones",
          "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret\n", 0640);
  auto before = WriteRotation(f, "new-secret\n", kUntil);
  REQUIRE(before.ok());
  CHECK(before->bytes() == "old-secret\n");
  CHECK(Read(f) == "new-secret\n");
  CHECK(ModeOf(f) == 0640);
  CHECK(Read(PreviousSecretFile(f)) == "old-secret\n");
  CHECK(ModeOf(PreviousSecretFile(f)) == 0640);
  CHECK(ModeOf(RotationStateFile(f)) == 0644);  // holds no secret
  const std::string state = Read(RotationStateFile(f));
  CHECK_THAT(state, Catch::Contains("previous_until = \"2026-12-10T00:00:00Z\"\n"));
  CHECK(state.find("old-secret") == std::string::npos);
  CHECK_FALSE(Exists(f + ".tmp"));
  auto read = ReadRotation(f);
  REQUIRE(read.ok());
  REQUIRE(read->has_value());
  CHECK((*read)->previous_until_ms == kUntil);
}

TEST_CASE("rotation: WriteRotation replaces F (a new inode), never writes into it", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret");
  struct stat was {};
  REQUIRE(::stat(f.c_str(), &was) == 0);
  // A hard link sees the old bytes after the rename: the file was replaced whole.
  const std::string link = dir.File("link");
  REQUIRE(::link(f.c_str(), link.c_str()) == 0);
  REQUIRE(WriteRotation(f, "new-secret", kUntil).ok());
  struct stat now {};
  REQUIRE(::stat(f.c_str(), &now) == 0);
  CHECK(now.st_ino != was.st_ino);
  CHECK(Read(link) == "old-secret");
}

TEST_CASE("rotation: WriteRotation refuses the secret F already holds and writes nothing", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "same-secret\n");
  for (const std::string next : {"same-secret\n", "same-secret", "same-secret\r\n"}) {
    INFO(next.size());
    auto r = WriteRotation(f, next, kUntil);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message() == "the new secret is the one " + f + " already holds");
    CHECK(Read(f) == "same-secret\n");
    CHECK_FALSE(Exists(PreviousSecretFile(f)));
    CHECK_FALSE(Exists(RotationStateFile(f)));
  }
}

TEST_CASE("rotation: WriteRotation on a missing F is a conflict naming it, writing nothing", "[config][rotation]") {
  TempDir dir;
  const std::string f = dir.File("missing.secret");
  auto r = WriteRotation(f, "new-secret", kUntil);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kConflict);
  CHECK_THAT(r.status().message(), Catch::StartsWith("cannot read " + f));
  CHECK_FALSE(Exists(f));
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
  CHECK_FALSE(Exists(RotationStateFile(f)));
}

TEST_CASE("rotation: WriteRotation that cannot read F writes nothing", "[config][rotation]") {
  TempDir dir;
  const std::string f = dir.File("demo.secret");
  REQUIRE(::mkdir(f.c_str(), 0700) == 0);  // not a file
  auto r = WriteRotation(f, "new-secret\n", kUntil);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kConflict);
  CHECK_THAT(r.status().message(), Catch::StartsWith("cannot read " + f));
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
  CHECK_FALSE(Exists(RotationStateFile(f)));
}

TEST_CASE("rotation: UndoRotation puts the old bytes back and removes the files beside F", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret\n", 0640);
  auto before = WriteRotation(f, "new-secret\n", kUntil);
  REQUIRE(before.ok());
  REQUIRE(UndoRotation(f, before->bytes()).ok());
  CHECK(Read(f) == "old-secret\n");
  CHECK(ModeOf(f) == 0640);
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
  CHECK_FALSE(Exists(RotationStateFile(f)));
  CHECK_FALSE(Exists(f + ".tmp"));
}

TEST_CASE("rotation: RemoveRotation removes both files; absent ones are fine", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret\n");
  REQUIRE(WriteRotation(f, "new-secret\n", kUntil).ok());
  REQUIRE(RemoveRotation(f).ok());
  CHECK(Read(f) == "new-secret\n");
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
  CHECK_FALSE(Exists(RotationStateFile(f)));
  CHECK(RemoveRotation(f).ok());                 // nothing left: still fine
  dir.Write("demo.secret.previous", "older\n");  // a previous file alone
  CHECK(RemoveRotation(f).ok());
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
}

TEST_CASE("rotation: RemoveRotation that cannot remove a file names it", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "s\n");
  REQUIRE(::mkdir(RotationStateFile(f).c_str(), 0700) == 0);
  dir.Write("demo.secret.rotation/inside", "x");  // a non-empty directory cannot be unlinked
  Status st = RemoveRotation(f).status();
  CHECK(st.code() == Code::kConflict);
  CHECK_THAT(st.message(), Catch::StartsWith("cannot remove " + RotationStateFile(f)));
}

TEST_CASE("rotation: RemoveRotation returns what it removed; RestoreRotation puts it back", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "old-secret\n");
  REQUIRE(WriteRotation(f, "new-secret\n", kUntil).ok());
  const std::string state = Read(RotationStateFile(f));
  auto removed = RemoveRotation(f);
  REQUIRE(removed.ok());
  REQUIRE(removed->has_value());
  CHECK((*removed)->previous.bytes() == "old-secret\n");
  CHECK((*removed)->state == state);
  CHECK_FALSE(Exists(PreviousSecretFile(f)));
  REQUIRE(RestoreRotation(f, **removed).ok());
  CHECK(Read(PreviousSecretFile(f)) == "old-secret\n");
  CHECK(Read(RotationStateFile(f)) == state);
  CHECK(ModeOf(PreviousSecretFile(f)) == ModeOf(f));
  auto again = RemoveRotation(f);
  REQUIRE(again.ok());
  CHECK(again->has_value());
  auto none = RemoveRotation(f);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());  // no state file: nothing to retire
}

TEST_CASE("rotation: a secret_file that is a link is refused, the link and its target untouched",
          "[config][rotation]") {
  TempDir dir;
  const std::string target = DemoSecret(dir, "old-secret\n");
  const std::string link = dir.File("linked.secret");
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  auto r = WriteRotation(link, "new-secret\n", kUntil);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kConflict);
  CHECK_THAT(r.status().message(), Catch::Contains("is a link to " + target));
  CHECK(Read(target) == "old-secret\n");
  struct stat st {};
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK_FALSE(Exists(PreviousSecretFile(link)));
  CHECK_FALSE(Exists(RotationStateFile(link)));
}

TEST_CASE("rotation: the directory lock keeps a second step out; without waiting it says why", "[config][rotation]") {
  TempDir dir;
  const std::string f = DemoSecret(dir, "s\n");
  auto held = SecretDirLock::Acquire(f, /*wait=*/true);
  REQUIRE(held.ok());
  auto second = SecretDirLock::Acquire(f, /*wait=*/false);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::kConflict);
  CHECK_THAT(second.status().message(), Catch::Contains("another rotation step"));
  { auto released = std::move(*held); }
  CHECK(SecretDirLock::Acquire(f, /*wait=*/false).ok());
}
