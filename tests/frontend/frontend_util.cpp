#include "frontend_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/evaluator.h"

namespace tc::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> python_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

static std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

CaseFile load_case(const std::string& path) {
  CaseFile c;
  c.path = path;
  c.source = slurp(path);
  c.options.filename = path;
  std::istringstream in(c.source);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] != '#') break;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(1, colon - 1)), value = trim(line.substr(colon + 1));
    if (key == "inputs") {
      std::istringstream items(value);
      std::string item;
      while (items >> item) {
        auto eq = item.find('=');
        auto d = eq == std::string::npos ? Result<Domain>(make_error("no '='")) : parse_domain(item.substr(eq + 1));
        if (!d) {
          c.problem = "bad input '" + item + "'";
          continue;
        }
        c.options.inputs.emplace_back(item.substr(0, eq), *d);
      }
    } else if (key == "function") {
      c.options.function = value;
    } else if (key == "dtype") {
      auto d = dtype_from(value);
      if (!d) c.problem = "bad dtype";
      else c.options.dtype = *d;
    } else if (key == "max-iterations") {
      c.options.max_iterations = std::stoul(value);
    } else if (key == "max-nodes") {
      c.options.max_nodes = std::stoul(value);
    } else if (key == "expect") {
      // LINE:COL message-substring
      auto sp = value.find(' ');
      std::string pos = value.substr(0, sp);
      auto c2 = pos.find(':');
      if (c2 == std::string::npos || sp == std::string::npos) {
        c.problem = "expect must be 'LINE:COL substring'";
        continue;
      }
      c.expect_line = std::stoi(pos.substr(0, c2));
      c.expect_column = std::stoi(pos.substr(c2 + 1));
      c.expect_message = trim(value.substr(sp + 1));
    }
  }
  return c;
}

static std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string disassemble(const Program& p) {
  std::ostringstream os;
  os << "semantics " << to_string(p.semantics) << ", dtype " << to_string(p.dtype) << "\n";
  for (const Node& n : p.nodes) {
    os << "%" << n.id << " = " << op_name(n.op);
    if (n.op == Op::Input) os << " " << n.name << " : " << n.domain->to_string();
    if (n.op == Op::Constant) os << " " << number(n.value);
    if (n.op == Op::Raise) os << " '" << n.name << "'";
    for (NodeId a : n.args) os << " %" << a;
    if (n.location) os << "  @" << n.location->line << ":" << n.location->column;
    os << "\n";
  }
  for (const auto& [name, id] : p.outputs) os << name << " = %" << id << "\n";
  return os.str();
}

Result<CompileOutput> compile_text(const std::string& source, const std::vector<std::string>& inputs,
                                   const std::string& function) {
  CompileOptions o;
  o.filename = "test.py";
  o.function = function;
  for (const std::string& item : inputs) {
    auto eq = item.find('=');
    auto d = parse_domain(item.substr(eq + 1));
    if (!d) return d.error();
    o.inputs.emplace_back(item.substr(0, eq), *d);
  }
  return compile_python(source, o);
}

Result<std::vector<std::pair<std::string, double>>> evaluate(const Program& p,
                                                              const std::vector<std::pair<std::string, double>>& inputs) {
  auto ev = Evaluator::create(p);
  if (!ev) return ev.error();
  Env env;
  for (const auto& [k, v] : inputs) env.inputs[k] = v;
  auto r = ev->run(env);
  if (!r) return r.error();
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < p.outputs.size(); ++i) out.emplace_back(p.outputs[i].first, r->outputs[i]);
  return out;
}

}  // namespace tc::test
