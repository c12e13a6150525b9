#pragma once
/// Byte strings for what ranks send each other (partial verify reports,
/// diagnostics): fixed-width little-endian-as-stored numbers and
/// length-prefixed strings. Only ranks of one job, built from the same
/// binary, read them.
#include <cstdint>
#include <cstring>
#include <string>

#include "base/diagnostic.h"
#include "verify/verify.h"

namespace tc::cli::scale::mpi {

class WireWriter {
 public:
  void u64(std::uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64(double v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes_ += s;
  }
  [[nodiscard]] std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class WireReader {
 public:
  explicit WireReader(const std::string& bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  std::uint64_t u64() {
    std::uint64_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  double f64() {
    double v = 0;
    take(&v, sizeof v);
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (!ok_ || n > static_cast<std::uint64_t>(end_ - p_)) {
      ok_ = false;
      return {};
    }
    std::string s(p_, static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  void take(void* out, std::size_t n) {
    if (!ok_ || static_cast<std::size_t>(end_ - p_) < n) {
      ok_ = false;
      return;
    }
    std::memcpy(out, p_, n);
    p_ += n;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

inline void write_diagnostic(WireWriter& w, const Diagnostic& d) {
  w.str(d.message);
  w.str(d.file);
  w.u64(d.loc ? 1 : 0);
  w.u64(d.loc ? static_cast<std::uint64_t>(static_cast<std::int64_t>(d.loc->line)) : 0);
  w.u64(d.loc ? static_cast<std::uint64_t>(static_cast<std::int64_t>(d.loc->column)) : 0);
  w.u64(d.node ? 1 : 0);
  w.u64(d.node ? static_cast<std::uint64_t>(static_cast<std::int64_t>(*d.node)) : 0);
}

inline Diagnostic read_diagnostic(WireReader& r) {
  Diagnostic d;
  d.message = r.str();
  d.file = r.str();
  const bool has_loc = r.u64() != 0;
  const auto line = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  const auto column = static_cast<int>(static_cast<std::int64_t>(r.u64()));
  if (has_loc) d.loc = SourceLoc{line, column};
  const bool has_node = r.u64() != 0;
  const auto node = static_cast<NodeId>(static_cast<std::int64_t>(r.u64()));
  if (has_node) d.node = node;
  return d;
}

inline void write_outcome(WireWriter& w, const Outcome& o) {
  w.u64(o.raised ? 1 : 0);
  w.str(o.error);
  w.u64(o.outputs.size());
  for (const auto& [name, value] : o.outputs) {
    w.str(name);
    w.f64(value);
  }
}

inline Outcome read_outcome(WireReader& r) {
  Outcome o;
  o.raised = r.u64() != 0;
  o.error = r.str();
  const std::uint64_t n = r.u64();
  for (std::uint64_t k = 0; k < n && r.ok(); ++k) {
    std::string name = r.str();
    o.outputs.emplace_back(std::move(name), r.f64());
  }
  return o;
}

inline std::string write_report(const VerifyReport& report) {
  WireWriter w;
  w.u64(report.cases);
  w.u64(report.planned_cases);
  w.u64(report.exhaustive ? 1 : 0);
  w.u64(report.passed ? 1 : 0);
  w.u64(report.mismatch_count);
  w.u64(report.mismatches.size());
  for (const Mismatch& m : report.mismatches) {
    w.u64(m.index);
    w.u64(m.inputs.size());
    for (const auto& [name, value] : m.inputs) {
      w.str(name);
      w.f64(value);
    }
    write_outcome(w, m.circuit);
    write_outcome(w, m.reference);
  }
  return w.take();
}

inline VerifyReport read_report(const std::string& bytes, bool& ok) {
  WireReader r(bytes);
  VerifyReport report;
  report.cases = r.u64();
  report.planned_cases = r.u64();
  report.exhaustive = r.u64() != 0;
  report.passed = r.u64() != 0;
  report.mismatch_count = r.u64();
  const std::uint64_t n = r.u64();
  for (std::uint64_t k = 0; k < n && r.ok(); ++k) {
    Mismatch m;
    m.index = r.u64();
    const std::uint64_t inputs = r.u64();
    for (std::uint64_t i = 0; i < inputs && r.ok(); ++i) {
      std::string name = r.str();
      m.inputs.emplace_back(std::move(name), r.f64());
    }
    m.circuit = read_outcome(r);
    m.reference = read_outcome(r);
    report.mismatches.push_back(std::move(m));
  }
  ok = r.ok();
  return report;
}

}  // namespace tc::cli::scale::mpi
