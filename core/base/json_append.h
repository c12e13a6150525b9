#pragma once
/// Appending to an ordered JSON object without the linear key search of
/// nlohmann::ordered_json::operator[] (which makes building an object of n
/// keys O(n^2): 100,000 outputs took seconds to print). The caller
/// guarantees the key is new (names a Program validated as unique).
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace tc {

inline void json_append(nlohmann::ordered_json& object, std::string key, nlohmann::ordered_json value) {
  if (!object.is_object()) object = nlohmann::ordered_json::object();
  auto& members = *object.get_ptr<nlohmann::ordered_json::object_t*>();
  members.nlohmann::ordered_json::object_t::Container::emplace_back(std::move(key), std::move(value));
}

}  // namespace tc
