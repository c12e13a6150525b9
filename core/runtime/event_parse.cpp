// Reading one events line. A streaming (SAX) reader instead of a parsed JSON
// tree: an event is a flat object of numbers, so the reader refuses anything
// nested at the first bracket (no depth to bound), sees every key - so a
// repeated input name is an error instead of silently keeping the last
// value - and builds the NamedValues directly.
#include <cmath>
#include <string>

#include "runtime/runtime.h"
#include "runtime/runtime_impl.h"

namespace tc {

namespace {

using Json = nlohmann::ordered_json;

// The longest events line read (the CLI refuses longer lines before this).
constexpr std::size_t kMaxEventBytes = std::size_t(16) << 20;

class EventReader : public nlohmann::json_sax<Json> {
 public:
  EventReader(const std::vector<std::string>& input_names, const std::vector<bool>& boolean_inputs,
              const std::string& names_hint)
      : names_(input_names), boolean_(boolean_inputs), hint_(names_hint) {}

  NamedValues values;
  std::optional<std::string> error;

  bool null() override { return scalar("null", std::nullopt, false); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false", v ? 1.0 : 0.0, true); }
  bool number_integer(number_integer_t v) override { return scalar(nullptr, static_cast<double>(v), false); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(nullptr, static_cast<double>(v), false); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(nullptr, v, false); }
  bool string(string_t& v) override {
    const std::string shown = short_json(Json(v));
    return scalar(shown.c_str(), std::nullopt, false);
  }
  bool binary(binary_t&) override { return scalar("binary data", std::nullopt, false); }

  bool start_object(std::size_t) override { return open("an object", "object"); }
  bool start_array(std::size_t) override { return open("an array", "array"); }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool end_array() override { return fail("internal error: unexpected end of array"); }

  bool key(string_t& k) override {
    int index = -1;
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == k) index = static_cast<int>(i);
    if (index < 0) return fail("unknown input '" + quote_user(k) + "'" + hint_);
    if (values.contains(k)) return fail("input '" + quote_user(k) + "' is given twice");
    key_ = k;
    key_boolean_ = boolean_[static_cast<std::size_t>(index)];
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return fail("invalid json: " + what);
  }

 private:
  bool fail(std::string message) {
    if (!error) error = std::move(message);
    return false;
  }

  // Nested containers are never inputs; the top level must be an object.
  bool open(const char* described, const char* kind) {
    if (depth_ == 0 && std::string(kind) == "object") {
      depth_ = 1;
      return true;
    }
    if (depth_ == 0) return fail(std::string("an event must be a JSON object of input values, got ") + kind);
    return fail("input '" + key_ + "': " + described + " is not a number");
  }

  // A value: `shown` names a non-number for the message, `v` is the number
  // (absent for a non-number), `is_bool` marks JSON true/false.
  bool scalar(const char* shown, std::optional<double> v, bool is_bool) {
    if (depth_ == 0) {
      const char* kind = is_bool ? "boolean" : shown && std::string(shown) == "null" ? "null" : v ? "number" : "string";
      return fail(std::string("an event must be a JSON object of input values, got ") + kind);
    }
    if (is_bool && !key_boolean_) return fail("input '" + key_ + "': " + shown + " is not a number");
    if (!v) return fail("input '" + key_ + "': " + shown + " is not a number");
    if (!std::isfinite(*v)) return fail("input '" + key_ + "': the value is not a finite number");
    values.emplace(key_, *v);
    return true;
  }

  const std::vector<std::string>& names_;
  const std::vector<bool>& boolean_;
  const std::string& hint_;
  int depth_ = 0;
  std::string key_;
  bool key_boolean_ = false;
};

}  // namespace

Result<NamedValues> Runtime::parse_event(std::string_view line) const {
  if (line.size() > kMaxEventBytes)
    return make_error("the event is longer than " + std::to_string(kMaxEventBytes) + " bytes");
  // nlohmann's lexer ends the input at a NUL byte, which would accept
  // `{"a":1}` followed by NUL and garbage; JSON has no raw NUL anywhere.
  if (const std::size_t nul = line.find('\0'); nul != std::string_view::npos)
    return make_error("invalid json: a NUL byte at column " + std::to_string(nul + 1));
  EventReader reader(impl_->input_names, impl_->input_is_boolean, impl_->input_hint);
  try {
    const bool ok = Json::sax_parse(line.begin(), line.end(), &reader, nlohmann::json::input_format_t::json, true);
    if (!ok || reader.error) return make_error(reader.error.value_or("invalid json"));
  } catch (const std::exception& e) {
    return make_error(std::string("invalid json: ") + e.what());
  }
  return std::move(reader.values);
}

}  // namespace tc
