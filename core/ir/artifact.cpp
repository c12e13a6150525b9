#include "ir/artifact.h"

#include "base/json_append.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <unordered_set>
#include <cstdint>
#include <limits>
#include <string>

namespace tc {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxTextBytes = kMaxJsonTextBytes;
constexpr std::size_t kMaxNodes = 10'000'000;
constexpr std::int64_t kMaxExactInteger = std::int64_t(1) << 53;  // every reader's doubles hold it exactly

const char* kind_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "a number";
    case Json::value_t::binary: return "binary data";
    case Json::value_t::discarded: return "invalid";
  }
  return "invalid";
}

/// Builds errors that say where in the artifact the problem is.
struct Where {
  std::string prefix;  // "node 3 (add)" or "root"
  Diagnostic operator()(const std::string& field, const std::string& what) const {
    return make_error(prefix + ": field '" + field + "' " + what);
  }
};

Result<double> get_number(const Json& j, const Where& w, const std::string& field) {
  if (!j.is_number()) return w(field, std::string("must be a number, got ") + kind_name(j));
  // An integer literal that binary64 cannot hold would not read back identically.
  // Unsigned first: nlohmann's is_number_integer() is also true for unsigned
  // values, and reading 2^64 - 1 as int64 gives -1, which looks exact.
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    double d = static_cast<double>(u);
    if (d >= 18446744073709551616.0 || static_cast<std::uint64_t>(d) != u)
      return w(field, "is the integer " + std::to_string(u) + ", which binary64 cannot represent exactly");
  } else if (j.is_number_integer()) {
    auto i = j.get<std::int64_t>();
    if (i != std::numeric_limits<std::int64_t>::min() &&
        static_cast<std::int64_t>(static_cast<double>(i)) != i)
      return w(field, "is the integer " + std::to_string(i) + ", which binary64 cannot represent exactly");
  }
  double v = j.get<double>();
  if (!std::isfinite(v)) return w(field, "is not a finite number");
  return v;
}

Result<std::int64_t> get_int(const Json& j, const Where& w, const std::string& field, std::int64_t lo,
                             std::int64_t hi) {
  std::int64_t v = 0;
  if (j.is_number_integer()) {
    v = j.get<std::int64_t>();
  } else if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return w(field, "is out of range");
    v = static_cast<std::int64_t>(u);
  } else if (j.is_number_float()) {
    double d = j.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15)
      return w(field, "must be an integer");
    v = static_cast<std::int64_t>(d);
  } else {
    return w(field, std::string("must be an integer, got ") + kind_name(j));
  }
  if (v < lo || v > hi) return w(field, "is out of range (" + std::to_string(v) + ")");
  return v;
}

Result<std::string> get_string(const Json& j, const Where& w, const std::string& field) {
  if (!j.is_string()) return w(field, std::string("must be a string, got ") + kind_name(j));
  return j.get<std::string>();
}

Status check_keys(const Json& obj, const Where& w, std::initializer_list<const char*> allowed) {
  for (const auto& [key, _] : obj.items()) {
    bool ok = false;
    for (const char* a : allowed)
      if (key == a) ok = true;
    if (!ok) return make_error(w.prefix + ": unknown field '" + quote_user(key) + "'");
  }
  return ok_status();
}

Result<Domain> parse_domain_json(const Json& j, const Where& w) {
  if (!j.is_object()) return w("domain", std::string("must be an object or null, got ") + kind_name(j));
  if (Status s = check_keys(j, Where{w.prefix + ": field 'domain'"}, {"type", "min", "max"}); !s) return s.error();
  if (!j.contains("type")) return w("domain", "needs a 'type'");
  auto type = get_string(j["type"], w, "domain.type");
  if (!type) return type.error();
  auto t = domain_type_from(*type);
  if (!t) return w("domain.type", "is '" + quote_user(*type) + "', expected int32, boolean, float32 or float64");
  Domain d;
  d.type = *t;
  if (j.contains("min")) {
    auto v = get_number(j["min"], w, "domain.min");
    if (!v) return v.error();
    d.min = *v;
  }
  if (j.contains("max")) {
    auto v = get_number(j["max"], w, "domain.max");
    if (!v) return v.error();
    d.max = *v;
  }
  return d;
}

/// `[["i", 3], ["j", 7]]`: the loops a node was expanded in, outermost
/// first. Present only when non-empty, so saving a loaded file gives it back.
Result<std::vector<LoopStep>> parse_iteration_json(const Json& j, const Where& w) {
  if (!j.is_array()) return w("iteration", std::string("must be an array of [name, integer] pairs, got ") + kind_name(j));
  if (j.empty()) return w("iteration", "must not be empty (leave the field out for a node outside loops)");
  std::vector<LoopStep> path;
  path.reserve(j.size());
  for (std::size_t k = 0; k < j.size(); ++k) {
    const Json& step = j[k];
    const std::string where = "iteration[" + std::to_string(k) + "]";
    if (!step.is_array() || step.size() != 2)
      return w(where, "must be a [name, integer] pair");
    if (!step[0].is_string() || step[0].get<std::string>().empty())
      return w(where, "must start with a non-empty loop variable name");
    if (!step[1].is_number_integer() && !step[1].is_number_unsigned())
      return w(where, std::string("must end with an integer, got ") + kind_name(step[1]) +
                          (step[1].is_number_float() ? " with a fraction or exponent" : ""));
    auto v = get_int(step[1], w, where, -kMaxExactInteger, kMaxExactInteger);
    if (!v) return v.error();
    path.push_back(LoopStep{step[0].get<std::string>(), *v});
  }
  return path;
}

Result<Node> parse_node(const Json& j, std::size_t index) {
  Where w{"node " + std::to_string(index)};
  if (!j.is_object()) return make_error(w.prefix + ": must be an object, got " + kind_name(j));
  for (const char* req : {"id", "op", "args", "shape", "domain", "differentiable", "location"})
    if (!j.contains(req)) return w(req, "is missing");
  Node n;
  auto id = get_int(j["id"], w, "id", 0, std::numeric_limits<NodeId>::max());
  if (!id) return id.error();
  if (*id != static_cast<std::int64_t>(index))
    return w("id", "is " + std::to_string(*id) + ", expected " + std::to_string(index) + " (ids equal positions)");
  n.id = static_cast<NodeId>(*id);
  auto opname = get_string(j["op"], w, "op");
  if (!opname) return opname.error();
  auto op = op_from_name(*opname);
  if (!op) return w("op", "names unknown op '" + quote_user(*opname) + "'");
  n.op = *op;
  const OpInfo& info = op_info(n.op);
  w.prefix += " (" + *opname + ")";

  std::vector<const char*> allowed = {"id", "op", "args", "shape", "domain", "differentiable", "location",
                                      "iteration", "semantics", "surrogate", "temperature"};
  if (info.has(kNamed)) allowed.push_back("name");
  if (info.has(kHasValue)) allowed.push_back("value");
  if (info.has(kHasCoefficients)) {
    allowed.push_back("coefficients");
    allowed.push_back("bias");
  }
  if (n.op == Op::SparseAffine) allowed.push_back("indices");
  for (const auto& [key, _] : j.items()) {
    bool ok = false;
    for (const char* a : allowed)
      if (key == a) ok = true;
    if (!ok) return make_error(w.prefix + ": field '" + quote_user(key) + "' is not allowed on this op");
  }

  const Json& args = j["args"];
  if (!args.is_array()) return w("args", std::string("must be an array, got ") + kind_name(args));
  n.args.reserve(args.size());
  for (const Json& a : args) {
    auto v = get_int(a, w, "args", 0, std::numeric_limits<NodeId>::max());
    if (!v) return v.error();
    n.args.push_back(static_cast<NodeId>(*v));
  }
  if (!j["shape"].is_array() || !j["shape"].empty()) return w("shape", "must be [] (nodes are scalars)");
  if (!j["domain"].is_null()) {
    auto d = parse_domain_json(j["domain"], w);
    if (!d) return d.error();
    n.domain = *d;
  }
  if (!j["differentiable"].is_boolean()) return w("differentiable", "must be true or false");
  n.differentiable = j["differentiable"].get<bool>();
  const Json& loc = j["location"];
  if (!loc.is_null()) {
    if (!loc.is_object()) return w("location", "must be null or {\"line\", \"column\"}");
    if (Status s = check_keys(loc, Where{w.prefix + ": field 'location'"}, {"line", "column"}); !s) return s.error();
    if (!loc.contains("line") || !loc.contains("column")) return w("location", "needs 'line' and 'column'");
    auto line = get_int(loc["line"], w, "location.line", 1, std::numeric_limits<int>::max());
    if (!line) return line.error();
    auto col = get_int(loc["column"], w, "location.column", 1, std::numeric_limits<int>::max());
    if (!col) return col.error();
    n.location = SourceLoc{static_cast<int>(*line), static_cast<int>(*col)};
  }
  if (j.contains("iteration")) {
    auto path = parse_iteration_json(j["iteration"], w);
    if (!path) return path.error();
    n.iteration = std::move(*path);
  }
  if (info.has(kNamed)) {
    if (!j.contains("name")) return w("name", "is missing");
    auto name = get_string(j["name"], w, "name");
    if (!name) return name.error();
    n.name = *name;
  }
  if (info.has(kHasValue)) {
    if (!j.contains("value")) return w("value", "is missing");
    auto v = get_number(j["value"], w, "value");
    if (!v) return v.error();
    n.value = *v;
  }
  if (info.has(kHasCoefficients)) {
    if (!j.contains("coefficients")) return w("coefficients", "is missing");
    if (!j.contains("bias")) return w("bias", "is missing (use null for none)");
    const Json& cs = j["coefficients"];
    if (!cs.is_array()) return w("coefficients", "must be an array of numbers");
    for (const Json& c : cs) {
      auto v = get_number(c, w, "coefficients");
      if (!v) return v.error();
      n.edit_linear().coefficients.push_back(*v);
    }
    if (!j["bias"].is_null()) {
      auto b = get_number(j["bias"], w, "bias");
      if (!b) return b.error();
      n.edit_linear().bias = *b;
    }
  }
  if (n.op == Op::SparseAffine) {
    if (!j.contains("indices")) return w("indices", "is missing");
    const Json& is = j["indices"];
    if (!is.is_array()) return w("indices", "must be an array of integers");
    for (const Json& i : is) {
      auto v = get_int(i, w, "indices", 0, std::numeric_limits<std::int32_t>::max());
      if (!v) return v.error();
      n.edit_linear().indices.push_back(static_cast<std::int32_t>(*v));
    }
  }
  if (j.contains("semantics")) {
    auto s = get_string(j["semantics"], w, "semantics");
    if (!s) return s.error();
    auto sem = semantics_from(*s);
    if (!sem) return w("semantics", "is '" + quote_user(*s) + "', expected exact, relaxed or hybrid");
    n.semantics = *sem;
  }
  if (j.contains("surrogate")) {
    auto s = get_string(j["surrogate"], w, "surrogate");
    if (!s) return s.error();
    auto sur = surrogate_from(*s);
    if (!sur) return w("surrogate", "is '" + quote_user(*s) + "', expected sigmoid");
    n.surrogate = *sur;
  }
  if (j.contains("temperature")) {
    auto t = get_number(j["temperature"], w, "temperature");
    if (!t) return t.error();
    n.temperature = *t;
  }
  return n;
}

/// Nesting depth of arrays/objects, computed without recursion so hostile
/// input (200,000 open brackets) is refused before any parser sees it.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') max_depth = std::max(max_depth, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return max_depth;
}

SourceLoc line_column(std::string_view text, std::size_t offset) {
  SourceLoc at{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

/// True when the decimal integer literal `token` is exactly the double `v`.
bool exact_integer(double v, std::string_view token) {
  if (!std::isfinite(v)) return false;
  char buf[400];
  const int n = std::snprintf(buf, sizeof buf, "%.0f", v);  // glibc prints the exact value
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return false;
  std::string_view printed(buf, static_cast<std::size_t>(n));
  if (!token.empty() && token[0] == '-' && !printed.empty() && printed[0] == '-') {
    token.remove_prefix(1);
    printed.remove_prefix(1);
  }
  return token == printed;
}

/// A char iterator that records how far the parser has read, so that an
/// error found in a SAX callback (a duplicate key) can name its line.
struct TrackingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* p = nullptr;
  const char** mark = nullptr;
  reference operator*() const { return *p; }
  TrackingIterator& operator++() {
    *mark = ++p;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackingIterator& o) const { return p == o.p; }
  bool operator!=(const TrackingIterator& o) const { return p != o.p; }
};

/// Builds the ordered JSON value like nlohmann's own DOM parser, except that
/// (1) a key given twice in one object is an error with its line and column
/// (nlohmann keeps the last silently), and (2) keys are appended without the
/// linear search of ordered_map::operator[], so an object of n keys loads in
/// O(n) (small objects) or O(n) expected with a hash set (large ones) rather
/// than O(n^2).
class StrictDomBuilder {
 public:
  StrictDomBuilder(std::string_view text, const char*& read_to) : text_(text), read_to_(read_to) {}

  Json root;
  std::string error;  ///< set when parsing stopped on a duplicate key

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t& token) {
    // nlohmann reads an integer literal beyond the 64-bit range as a double,
    // rounding it silently; refuse one that binary64 cannot hold exactly.
    if (token.find_first_of(".eE") == std::string::npos && !exact_integer(v, token)) {
      const SourceLoc at = line_column(text_, static_cast<std::size_t>(read_to_ - text_.data()));
      error = "the integer " + quote_user(token) + " at line " + std::to_string(at.line) + ", column " +
              std::to_string(at.column) + " cannot be represented exactly in binary64";
      return false;
    }
    return put(Json(v));
  }
  bool string(Json::string_t& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t& v) { return put(Json(Json::binary_t(std::move(v)))); }
  bool start_object(std::size_t) {
    Json* obj = put_container(Json::object());
    stack_.push_back(Frame{obj, {}});
    return true;
  }
  bool key(Json::string_t& k) {
    Frame& f = stack_.back();
    auto& members = *f.value->get_ptr<Json::object_t*>();
    bool duplicate = false;
    if (f.seen) {
      duplicate = !f.seen->insert(k).second;
    } else {
      for (const auto& m : members) duplicate = duplicate || m.first == k;
      if (!duplicate && members.size() >= kHashFrom) {
        f.seen = std::make_unique<std::unordered_set<std::string>>();
        for (const auto& m : members) f.seen->insert(m.first);
        f.seen->insert(k);
      }
    }
    if (duplicate) {
      const SourceLoc at = line_column(text_, static_cast<std::size_t>(read_to_ - text_.data()));
      error = "duplicate key '" + quote_user(k) + "' at line " + std::to_string(at.line) + ", column " +
              std::to_string(at.column);
      return false;
    }
    // Append directly to the underlying vector: ordered_map::emplace would
    // search the keys again.
    members.Container::emplace_back(std::move(k), nullptr);
    pending_ = &members.back().second;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    Json* arr = put_container(Json::array());
    stack_.push_back(Frame{arr, {}});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    std::string what = ex.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    error = what;
    return false;
  }

 private:
  static constexpr std::size_t kHashFrom = 16;
  struct Frame {
    Json* value;
    std::unique_ptr<std::unordered_set<std::string>> seen;
  };

  Json* place(Json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    Json* top = stack_.back().value;
    if (top->is_array()) {
      auto& items = *top->get_ptr<Json::array_t*>();
      items.push_back(std::move(v));
      return &items.back();
    }
    *pending_ = std::move(v);
    return pending_;
  }
  bool put(Json&& v) {
    place(std::move(v));
    return true;
  }
  Json* put_container(Json&& v) { return place(std::move(v)); }

  std::string_view text_;
  const char*& read_to_;
  std::vector<Frame> stack_;
  Json* pending_ = nullptr;
};

Json number_json(double v) {
  if (v == std::floor(v) && std::fabs(v) <= 9007199254740992.0 && !(v == 0 && std::signbit(v)))
    return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace

Result<Json> parse_json_limited(std::string_view text, int max_depth) {
  if (text.size() > kMaxTextBytes)
    return make_error("json text is larger than the " + std::to_string(kMaxTextBytes >> 20) + " MiB limit");
  // nlohmann's lexer takes a NUL byte for the end of input, which would
  // accept `{"a":1}` followed by NUL and anything at all. JSON has no place
  // for a raw NUL (inside strings it must be escaped), so refuse it here.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const SourceLoc at = line_column(text, nul);
    return make_error("invalid json: a NUL byte at line " + std::to_string(at.line) + ", column " +
                      std::to_string(at.column));
  }
  if (nesting_depth(text) > static_cast<std::size_t>(max_depth))
    return make_error("json nests deeper than " + std::to_string(max_depth) + " levels");
  const char* read_to = text.data();
  StrictDomBuilder dom(text, read_to);
  try {
    Json::sax_parse(TrackingIterator{text.data(), &read_to}, TrackingIterator{text.data() + text.size(), &read_to},
                    &dom, Json::input_format_t::json, true);
  } catch (const std::exception& e) {
    return make_error(std::string("invalid json: ") + e.what());
  }
  if (!dom.error.empty()) return make_error("invalid json: " + dom.error);
  return std::move(dom.root);
}

Result<Program> program_from_json(const Json& j) {
  Where root{"artifact"};
  if (!j.is_object()) return make_error(std::string("artifact must be a json object, got ") + kind_name(j));
  if (Status s = check_keys(j, root, {"format", "version", "semantics", "dtype", "surrogate", "temperature", "nodes",
                                      "outputs", "updates"});
      !s)
    return s.error();
  for (const char* req : {"format", "version", "semantics", "dtype", "surrogate", "temperature", "nodes", "outputs",
                          "updates"})
    if (!j.contains(req)) return root(req, "is missing");
  if (!j["format"].is_string() || j["format"].get<std::string>() != "tensorcode.program")
    return root("format", "must be \"tensorcode.program\"");
  auto version = get_int(j["version"], root, "version", 0, 1000000);
  if (!version) return version.error();
  if (*version != 1) return root("version", "is " + std::to_string(*version) + "; this build reads version 1");
  Program p;
  auto sem = get_string(j["semantics"], root, "semantics");
  if (!sem) return sem.error();
  if (auto s = semantics_from(*sem)) p.semantics = *s;
  else return root("semantics", "is '" + quote_user(*sem) + "', expected exact, relaxed or hybrid");
  auto dt = get_string(j["dtype"], root, "dtype");
  if (!dt) return dt.error();
  if (auto d = dtype_from(*dt)) p.dtype = *d;
  else return root("dtype", "is '" + quote_user(*dt) + "', expected float64 or float32");
  auto sur = get_string(j["surrogate"], root, "surrogate");
  if (!sur) return sur.error();
  if (auto s = surrogate_from(*sur)) p.surrogate = *s;
  else return root("surrogate", "is '" + quote_user(*sur) + "', expected sigmoid");
  auto temp = get_number(j["temperature"], root, "temperature");
  if (!temp) return temp.error();
  p.temperature = *temp;

  const Json& nodes = j["nodes"];
  if (!nodes.is_array()) return root("nodes", std::string("must be an array, got ") + kind_name(nodes));
  if (nodes.size() > kMaxNodes) return root("nodes", "has more than " + std::to_string(kMaxNodes) + " nodes");
  p.nodes.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto n = parse_node(nodes[i], i);
    if (!n) return n.error();
    // Nodes of one loop iteration are stored next to each other: share their
    // path as the builder does, instead of one copy per node.
    if (!p.nodes.empty() && n->iteration == p.nodes.back().iteration) n->iteration = p.nodes.back().iteration;
    p.nodes.push_back(std::move(*n));
  }
  const Json& outs = j["outputs"];
  if (!outs.is_object()) return root("outputs", "must be an object of name -> node id");
  for (const auto& [name, id] : outs.items()) {
    auto v = get_int(id, root, "outputs." + quote_user(name), 0, std::numeric_limits<NodeId>::max());
    if (!v) return v.error();
    p.outputs.emplace_back(name, static_cast<NodeId>(*v));
  }
  const Json& ups = j["updates"];
  if (!ups.is_object()) return root("updates", "must be an object of state id -> next-value id");
  for (const auto& [key, id] : ups.items()) {
    bool digits = !key.empty() && key.size() <= 10 && (key == "0" || key[0] != '0');
    for (char c : key) digits = digits && c >= '0' && c <= '9';
    if (!digits) return root("updates", "has key '" + quote_user(key) + "', expected a state node id written in decimal");
    long long state = std::stoll(key);
    if (state > std::numeric_limits<NodeId>::max()) return root("updates", "has key '" + quote_user(key) + "' out of range");
    auto v = get_int(id, root, "updates." + key, 0, std::numeric_limits<NodeId>::max());
    if (!v) return v.error();
    p.updates.emplace_back(static_cast<NodeId>(state), static_cast<NodeId>(*v));
  }
  if (Status s = validate(p); !s) return s.error();
  return p;
}

Result<Program> load_artifact(std::string_view text) {
  auto j = parse_json_limited(text);
  if (!j) return j.error();
  return program_from_json(*j);
}

Json program_to_json(const Program& p) {
  Json root = Json::object();
  root["format"] = "tensorcode.program";
  root["version"] = 1;
  root["semantics"] = std::string(to_string(p.semantics));
  root["dtype"] = std::string(to_string(p.dtype));
  root["surrogate"] = std::string(to_string(p.surrogate));
  root["temperature"] = number_json(p.temperature);
  Json nodes = Json::array();
  for (const Node& n : p.nodes) {
    const OpInfo& info = op_info(n.op);
    Json j = Json::object();
    j["id"] = n.id;
    j["op"] = std::string(info.name);
    Json args = Json::array();
    for (NodeId a : n.args) args.push_back(a);
    j["args"] = std::move(args);
    j["shape"] = Json::array();
    if (info.has(kNamed)) j["name"] = n.name;
    if (info.has(kHasValue)) j["value"] = number_json(n.value);
    if (n.domain) {
      Json d = Json::object();
      d["type"] = std::string(to_string(n.domain->type));
      if (n.domain->min) d["min"] = number_json(*n.domain->min);
      if (n.domain->max) d["max"] = number_json(*n.domain->max);
      j["domain"] = std::move(d);
    } else {
      j["domain"] = nullptr;
    }
    j["differentiable"] = n.differentiable;
    if (n.location) j["location"] = Json{{"line", n.location->line}, {"column", n.location->column}};
    else j["location"] = nullptr;
    if (!n.iteration.empty()) {
      Json path = Json::array();
      for (const LoopStep& step : n.iteration) path.push_back(Json::array({step.variable, step.value}));
      j["iteration"] = std::move(path);
    }
    if (info.has(kHasCoefficients)) {
      Json cs = Json::array();
      for (double c : n.linear().coefficients) cs.push_back(number_json(c));
      j["coefficients"] = std::move(cs);
      j["bias"] = n.linear().bias ? number_json(*n.linear().bias) : Json(nullptr);
    }
    if (n.op == Op::SparseAffine) {
      Json is = Json::array();
      for (std::int32_t i : n.linear().indices) is.push_back(i);
      j["indices"] = std::move(is);
    }
    if (n.semantics) j["semantics"] = std::string(to_string(*n.semantics));
    if (n.surrogate) j["surrogate"] = std::string(to_string(*n.surrogate));
    if (n.temperature) j["temperature"] = number_json(*n.temperature);
    nodes.push_back(std::move(j));
  }
  root["nodes"] = std::move(nodes);
  // Names are unique (validated), so entries are appended without the
  // ordered map's linear lookup per key (quadratic for 100k outputs).
  Json outs = Json::object();
  for (const auto& [name, id] : p.outputs) json_append(outs, name, id);  // unique: validated
  root["outputs"] = std::move(outs);
  Json ups = Json::object();
  for (const auto& [state, next] : p.updates) json_append(ups, std::to_string(state), next);  // unique: validated
  root["updates"] = std::move(ups);
  return root;
}

std::string save_artifact(const Program& program) {
  return program_to_json(program).dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace tc
