// http/request_gate: what is refused from the request line and headers alone,
// and reading a body with a cap.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "http/request_gate.h"

using namespace hookinbox;
using namespace hookinbox::http;

namespace {

httplib::Request With(std::vector<std::pair<std::string, std::string>> headers) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/x";
  for (auto& [name, value] : headers) req.headers.emplace(name, value);
  return req;
}

// A ContentReader that hands over `chunks` one by one, as the library would.
httplib::ContentReader Reader(std::vector<std::string> chunks, int* calls) {
  return httplib::ContentReader(
      [chunks, calls](httplib::ContentReceiver receiver) {
        ++*calls;
        for (const auto& c : chunks) {
          if (!receiver(c.data(), c.size())) return false;
        }
        return true;
      },
      [](httplib::MultipartContentHeader, httplib::ContentReceiver) { return false; });
}

}  // namespace

TEST_CASE("request gate: framing that cannot be trusted is refused", "[http]") {
  CHECK(CheckFraming(With({{"Content-Length", "5"}})).ok());
  CHECK(CheckFraming(With({{"Transfer-Encoding", "chunked"}})).ok());
  CHECK(CheckFraming(With({{"Transfer-Encoding", "Chunked"}})).ok());  // case aside, exactly as the library reads it
  CHECK(CheckFraming(With({})).ok());
  for (auto headers : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"Content-Length", "5"}, {"Content-Length", "5"}},
           {{"Content-Length", "abc"}},
           {{"Content-Length", "-1"}},
           {{"Content-Length", ""}},
           {{"Transfer-Encoding", "gzip"}},
           {{"Transfer-Encoding", "chunked "}},  // "chunked%20" once the library decoded it: not chunked to it
           {{"Transfer-Encoding", "gzip, chunked"}},
           {{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}},
           {{"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}},
       }) {
    Status st = CheckFraming(With(headers));
    CHECK(st.code() == Code::kInvalidArgument);
  }
}

TEST_CASE("request gate: any Content-Encoding but identity is 415, whichever header carries it", "[http]") {
  CHECK(CheckContentEncoding(With({})).ok());
  CHECK(CheckContentEncoding(With({{"Content-Encoding", "identity"}})).ok());
  CHECK(CheckContentEncoding(With({{"Content-Encoding", "gzip"}})).code() == Code::kUnsupported);
  CHECK(CheckContentEncoding(With({{"Content-Encoding", "br"}})).code() == Code::kUnsupported);
  CHECK(CheckContentEncoding(With({{"Content-Encoding", "identity"}, {"Content-Encoding", "deflate"}})).code() ==
        Code::kUnsupported);
}

TEST_CASE("request gate: a refused request is answered and its connection closed", "[http]") {
  httplib::Response res;
  CHECK(AnswerUnreadable(With({{"Content-Length", "1"}, {"Content-Length", "2"}}), res));
  CHECK(res.status == 400);
  CHECK(res.get_header_value("Connection") == "close");
  httplib::Response fine;
  CHECK_FALSE(AnswerUnreadable(With({{"Content-Length", "2"}}), fine));
  CHECK(fine.body.empty());

  // A GET's body would be left on the connection and parsed as the next request.
  httplib::Request get = With({{"Content-Length", "20"}});
  get.method = "GET";
  httplib::Response smuggled;
  CHECK(AnswerUnreadable(get, smuggled));
  CHECK(smuggled.status == 400);
  CHECK(smuggled.get_header_value("Connection") == "close");
  get.headers = {{"Content-Length", "0"}};
  httplib::Response empty_get;
  CHECK_FALSE(AnswerUnreadable(get, empty_get));

  // Range is dropped: no route serves partial content.
  get.ranges = {{0, 10}, {0, 10}};
  CHECK_FALSE(AnswerUnreadable(get, empty_get));
  CHECK(get.ranges.empty());
}

TEST_CASE("request gate: a body is read with its cap; past it reading stops or drains", "[http]") {
  int calls = 0;
  bool fully_read = false;
  auto body = ReadCappedBody(With({{"Content-Length", "6"}}), Reader({"abc", "def"}, &calls), 6, &fully_read);
  REQUIRE(body.ok());
  CHECK(*body == "abcdef");
  CHECK(fully_read);

  auto over = ReadCappedBody(With({{"Transfer-Encoding", "chunked"}}), Reader({"abc", "def", "ghi"}, &calls), 4,
                             &fully_read);
  CHECK(over.status().code() == Code::kTooLarge);
  CHECK_FALSE(fully_read);  // stopped part-way: the connection must close

  auto drained = ReadCappedBody(With({{"Content-Length", "9"}}), Reader({"abc", "def", "ghi"}, &calls), 4,
                                &fully_read, 100);
  CHECK(drained.status().code() == Code::kTooLarge);
  CHECK(fully_read);  // read to the end and dropped: the connection can go on

  calls = 0;
  auto none = ReadCappedBody(With({}), Reader({"never"}, &calls), 4, &fully_read);
  REQUIRE(none.ok());
  CHECK(none->empty());  // no Content-Length, no Transfer-Encoding: no body, nothing read
  CHECK(calls == 0);
}
