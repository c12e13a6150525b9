#pragma once
/// How the frontend's advice names the options a user can change: as the
/// CLI's flags (`--input x=int32:-1000:1000`, `--max-nodes N`) or as the
/// Python package's arguments (`inputs={"x": int32(min=-1000, max=1000)}`,
/// `max_nodes=N`) or as the TypeScript package's options (`{maxNodes: N}`)
/// or as the IDE's settings (the Compile Options dialog, the
/// Inputs panel). The caller picks one in CompileOptions::hints, so each
/// surface shows advice its user can act on; the message is otherwise the same.
#include <cstdint>
#include <string>
#include <string_view>

namespace tc {

enum class HintSpelling : std::uint8_t { Cli, Python, Ide, TypeScript };

namespace hints {

/// A budget option with its value: "--max-nodes N" / "max_nodes=N" /
/// "{maxNodes: N}" for option "max-nodes" (the CLI's spelling is the key).
inline std::string budget(HintSpelling h, std::string_view option) {
  std::string o(option);
  if (h == HintSpelling::Cli) return "--" + o + " N";
  if (h == HintSpelling::TypeScript) {
    std::string camel;
    for (std::size_t i = 0; i < o.size(); ++i) camel += o[i] == '-' && i + 1 < o.size() ? static_cast<char>(o[++i] - 'a' + 'A') : o[i];
    return "{" + camel + ": N}";
  }
  if (h == HintSpelling::Ide) {
    std::string label = o == "max-nodes" ? "Max nodes" : o == "max-iterations" ? "Max iterations" : o;
    return "the " + label + " setting (Program > Compile Options)";
  }
  for (char& c : o)
    if (c == '-') c = '_';
  return o + "=N";
}

/// One input's domain: "--input x=DOMAIN" / "inputs={\"x\": DOMAIN}", where
/// `domain` is already in that spelling (see domain()).
inline std::string input(HintSpelling h, std::string_view name, std::string_view domain) {
  if (h == HintSpelling::Cli) return "--input " + std::string(name) + "=" + std::string(domain);
  if (h == HintSpelling::TypeScript) return "{inputs: {" + std::string(name) + ": '" + std::string(domain) + "'}}";
  if (h == HintSpelling::Ide) return "a domain for " + std::string(name) + " in the Inputs panel (" + std::string(domain) + ")";
  return "inputs={\"" + std::string(name) + "\": " + std::string(domain) + "}";
}

/// An example domain: "int32:-128:127" / "int32(min=-128, max=127)" from the
/// type and the bounds as text; "bool" / "boolean()" when `type` is "bool".
inline std::string domain(HintSpelling h, std::string_view type, std::string_view lo = {}, std::string_view hi = {}) {
  if (type == "bool") return h == HintSpelling::Python ? "boolean()" : "bool";
  std::string out(type);
  if (h != HintSpelling::Python) {  // the IDE's Inputs panel reads the CLI's spelling
    if (!lo.empty()) out.append(":").append(lo).append(":").append(hi);
  } else if (lo.empty()) {
    out.append("()");
  } else {
    out.append("(min=").append(lo).append(", max=").append(hi).append(")");
  }
  return out;
}

/// Any other option by its CLI name ("function", "dtype"): "--function NAME" / "function=NAME".
inline std::string option(HintSpelling h, std::string_view name, std::string_view value) {
  if (h == HintSpelling::Cli) return "--" + std::string(name) + " " + std::string(value);
  if (h == HintSpelling::TypeScript) return "{" + std::string(name) + ": '" + std::string(value) + "'}";
  if (h == HintSpelling::Ide) {
    if (name == "function") return "the Function box of the Inputs panel";
    return "the " + std::string(name) + " setting (Program > Compile Options)";
  }
  return std::string(name) + "=" + std::string(value);
}

}  // namespace hints
}  // namespace tc
