// common/headers.h — a read-only view of request headers.
//
// verify/ and http/ must not share HTTP library types (verify never sees
// httplib), so the receive path adapts its request to this view; tests use
// MapHeaders. Names are compared case-insensitively, as HTTP requires.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookinbox {

class HeaderView {
 public:
  virtual ~HeaderView() = default;
  // The first value of header `name`, or nullopt when absent.
  virtual std::optional<std::string_view> Get(std::string_view name) const = 0;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Headers held in a vector; for tests and for code that builds requests.
class MapHeaders final : public HeaderView {
 public:
  MapHeaders() = default;
  MapHeaders(std::initializer_list<std::pair<std::string, std::string>> init) : items_(init) {}
  void Set(std::string name, std::string value);
  std::optional<std::string_view> Get(std::string_view name) const override;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace hookinbox
