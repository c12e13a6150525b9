// The CPython reference (see python_reference.h): a Reference that hands
// blocks of cases to worker processes running python_driver.py and turns
// their replies into Outcomes. The process, its limits and the watchdog are
// worker_process.cpp's; the Python side is python_driver.py's.
#include "verify/python_reference.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "verify/python_driver.inc"  // kPythonDriver: python_driver.py, embedded at build time
#include "verify/worker_process.h"

namespace tc {

namespace {

constexpr std::size_t kMaxWorkers = 256;
constexpr std::size_t kMinCasesPerWorker = 64;  // below this, one more process costs more than it saves

std::string default_python() { return TC_REFERENCE_PYTHON; }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string mib_text(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

/// An error in the reference module: located when the line is known,
/// otherwise the message names the file (a diagnostic without a location is
/// rendered as "error: MESSAGE").
Diagnostic located(std::string message, const std::string& file, int line, int column) {
  if (line <= 0 && !file.empty()) message = file + ": " + message;
  Diagnostic d = make_error(std::move(message));
  if (line > 0) d.loc = SourceLoc{line, column > 0 ? column : 1};
  d.file = file;
  return d;
}

std::optional<nlohmann::json> parse_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

/// Reads the results frame of `count` cases into `out`; false when malformed.
bool decode_results(const std::string& payload, std::size_t count, std::vector<Outcome>& out) {
  std::size_t pos = 0;
  auto u32 = [&](std::uint32_t& v) {
    if (payload.size() - pos < 4) return false;
    std::memcpy(&v, payload.data() + pos, 4);
    pos += 4;
    return true;
  };
  auto text = [&](std::string& s) {
    std::uint32_t n;
    if (!u32(n) || payload.size() - pos < n) return false;
    s.assign(payload.data() + pos, n);
    pos += n;
    return true;
  };
  for (std::size_t c = 0; c < count; ++c) {
    if (pos >= payload.size()) return false;
    char tag = payload[pos++];
    Outcome o;
    if (tag == 1) {
      o.raised = true;
      if (!text(o.error)) return false;
    } else if (tag == 0) {
      std::uint32_t n;
      if (!u32(n)) return false;
      for (std::uint32_t k = 0; k < n; ++k) {
        std::string name;
        double v;
        if (!text(name) || payload.size() - pos < 8) return false;
        std::memcpy(&v, payload.data() + pos, 8);
        pos += 8;
        o.outputs.emplace_back(std::move(name), v);
      }
    } else {
      return false;
    }
    out.push_back(std::move(o));
  }
  return pos == payload.size();
}

class PythonReference final : public Reference {
 public:
  explicit PythonReference(PythonReferenceOptions options) : options_(std::move(options)) {
    limits_.seconds_per_case = options_.max_seconds_per_case;
    limits_.memory_bytes = options_.max_memory_bytes;
  }

  /// Starts one worker and loads the module in it.
  Status load_first() {
    auto w = start_worker();
    if (!w) return w.error();
    workers_.push_back(std::move(*w));
    std::vector<WorkerProcess*> set{workers_.back().get()};
    if (Status s = await_ready(set); !s) return s;
    return load(set);
  }

  std::string describe() const override { return "python function " + name_ + " in " + options_.filename; }

  Status set_workers(std::size_t workers) override {
    wanted_ = std::clamp<std::size_t>(workers, 1, kMaxWorkers);
    return ok_status();
  }
  std::size_t workers() const override { return std::max(wanted_, workers_.size()); }

  Status bind(const std::vector<CaseInput>& inputs) override {
    if (broken_) return make_error(describe() + " was stopped earlier and cannot run again");
    std::vector<WorkerProcess*> fresh;
    while (workers_.size() < wanted_) {
      auto w = start_worker();
      if (!w) return w.error();
      workers_.push_back(std::move(*w));
      fresh.push_back(workers_.back().get());
    }
    if (!fresh.empty()) {
      if (Status s = await_ready(fresh); !s) return s;
      if (Status s = load(fresh); !s) return s;
    }
    nlohmann::json request = {{"names", nlohmann::json::array()}, {"integral", nlohmann::json::array()}};
    for (const CaseInput& in : inputs) {
      request["names"].push_back(in.name);
      request["integral"].push_back(in.domain.is_integral());
    }
    names_.clear();
    for (const CaseInput& in : inputs) names_.push_back(in.name);
    auto replies = round_trip('B', request.dump(), nullptr);
    if (!replies) return replies.error();
    for (const WorkerReply& r : *replies) {
      auto j = r.kind == 'J' ? parse_json(r.payload) : std::nullopt;
      if (!j) return protocol_error();
      if (j->contains("problem"))
        return located("reference function " + name_ + " " + (*j)["problem"].get<std::string>(), options_.filename,
                       line_, 1);
    }
    bound_ = true;
    return ok_status();
  }

  Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count, std::vector<Outcome>& out,
                  Progress* progress) override {
    if (broken_) return make_error(describe() + " was stopped earlier and cannot run again");
    if (!bound_) return make_error("internal: python reference used before bind");
    if (count == 0) return ok_status();
    // Contiguous slices, one per worker, so the results concatenate in case order.
    const std::size_t used =
        std::clamp<std::size_t>((count + kMinCasesPerWorker - 1) / kMinCasesPerWorker, 1, workers_.size());
    std::vector<std::size_t> first(used + 1);
    for (std::size_t i = 0; i <= used; ++i) first[i] = count * i / used;
    std::vector<WorkerProcess*> set;
    for (std::size_t i = 0; i < used; ++i) {
      const std::size_t n = first[i + 1] - first[i];
      std::string payload(8 + 8 * n * columns.size(), '\0');
      std::uint64_t n64 = n;
      std::memcpy(payload.data(), &n64, 8);
      for (std::size_t k = 0; k < columns.size(); ++k)
        std::memcpy(payload.data() + 8 + 8 * n * k, columns[k].data() + first[i], 8 * n);
      workers_[i]->send('E', payload, n);
      set.push_back(workers_[i].get());
    }
    std::vector<WorkerReply> replies;
    WorkerFailure failure;
    if (!WorkerProcess::await(set, progress, replies, failure)) {
      broken_ = true;
      const long local = failure.case_index;
      const long index = local >= 0 ? static_cast<long>(first[failure.worker]) + local : -1;
      return failed(failure, index >= 0 && static_cast<std::size_t>(index) < count ? case_text(columns, index) : "");
    }
    const std::size_t before = out.size();
    for (std::size_t i = 0; i < used; ++i) {
      const WorkerReply& r = replies[i];
      const std::size_t n = first[i + 1] - first[i];
      if (r.kind == 'F') {
        broken_ = true;
        kill_all();
        auto j = parse_json(r.payload);
        if (!j || !j->contains("error")) return protocol_error();
        long c = j->value("case", -1L);
        std::string why = (*j)["error"].get<std::string>();
        if (why == "ran out of its memory limit") why = "ran out of its " + mib_text(limits_.memory_bytes) + " memory limit";
        std::string where = c >= 0 && static_cast<std::size_t>(c) < n ? " on the case " + case_text(columns, static_cast<long>(first[i]) + c) : "";
        return located("reference function " + name_ + " " + why + where, options_.filename, line_, 1);
      }
      if (r.kind != 'R' || !decode_results(r.payload, n, out)) {
        out.resize(before);
        return protocol_error();
      }
    }
    return ok_status();
  }

 private:
  Result<std::unique_ptr<WorkerProcess>> start_worker() {
    return WorkerProcess::start({python(), "-I", "-S", "-B", "-c", kPythonDriver}, limits_);
  }

  /// Waits for the "ready" frame of freshly started workers (their
  /// interpreter's start-up is not charged to the module's time budget).
  Status await_ready(const std::vector<WorkerProcess*>& set) {
    std::vector<WorkerReply> replies;
    WorkerFailure failure;
    if (!WorkerProcess::await(set, nullptr, replies, failure)) {
      broken_ = true;
      return make_error("cannot start the python reference (" + python() + "): its process " +
                        failure_detail(failure, set));
    }
    for (const WorkerReply& r : replies) {
      auto j = r.kind == 'J' ? parse_json(r.payload) : std::nullopt;
      if (!j || !j->value("ready", false)) return protocol_error();
    }
    return ok_status();
  }

  std::string python() const { return options_.python.empty() ? default_python() : options_.python; }

  /// Sends the load request to `set` and checks every reply names the same function.
  Status load(const std::vector<WorkerProcess*>& set) {
    nlohmann::json request = {{"source", options_.source},
                              {"filename", options_.filename},
                              {"function", options_.function},
                              {"preferred", options_.preferred_function}};
    std::string text;
    try {
      text = request.dump();
    } catch (const nlohmann::json::exception&) {
      return located("the reference source is not valid utf-8", options_.filename, 0, 0);
    }
    for (WorkerProcess* w : set) w->send('L', text);
    std::vector<WorkerReply> replies;
    WorkerFailure failure;
    if (!WorkerProcess::await(set, nullptr, replies, failure)) {
      broken_ = true;
      if (failure.kind == WorkerFailure::Kind::TimedOut)
        return located("loading the reference ran longer than " + seconds_text(limits_.seconds_per_case) +
                           " s (does it loop forever at module level?)",
                       options_.filename, 0, 0);
      return located("loading the reference stopped its python process, which " + failure_detail(failure, set),
                     options_.filename, 0, 0);
    }
    for (const WorkerReply& r : replies) {
      auto j = r.kind == 'J' ? parse_json(r.payload) : std::nullopt;
      if (!j) return protocol_error();
      if (j->contains("error"))
        return located((*j)["error"].get<std::string>(), options_.filename, j->value("line", 0), j->value("column", 0));
      name_ = j->value("name", std::string());
      line_ = j->value("line", 0);
    }
    return ok_status();
  }

  /// Sends one request to every worker and waits for their replies.
  Result<std::vector<WorkerReply>> round_trip(char kind, const std::string& payload, Progress* progress) {
    std::vector<WorkerProcess*> set;
    for (auto& w : workers_) {
      w->send(kind, payload);
      set.push_back(w.get());
    }
    std::vector<WorkerReply> replies;
    WorkerFailure failure;
    if (!WorkerProcess::await(set, progress, replies, failure)) {
      broken_ = true;
      return failed(failure, "");
    }
    return replies;
  }

  std::string failure_detail(const WorkerFailure& f, const std::vector<WorkerProcess*>& set) const {
    std::string s = f.detail;
    if (f.worker < set.size()) {
      std::string line = set[f.worker]->stderr_line();
      if (!line.empty()) s += " (it wrote: " + line + ")";
    }
    return s;
  }

  Diagnostic failed(const WorkerFailure& f, const std::string& where) {
    kill_all();
    if (f.kind == WorkerFailure::Kind::Cancelled) return make_error("cancelled");
    std::string on = where.empty() ? "" : " on the case " + where;
    std::string message;
    switch (f.kind) {
      case WorkerFailure::Kind::TimedOut:
        message = "ran longer than " + seconds_text(limits_.seconds_per_case) + " s" + on + " (does it loop forever?)";
        break;
      case WorkerFailure::Kind::TooLarge:
        message = "produced too much output: its process " + f.detail + on;
        break;
      default: {
        std::vector<WorkerProcess*> set;
        for (auto& w : workers_) set.push_back(w.get());
        message = "stopped its python process, which " + failure_detail(f, set) + on;
        break;
      }
    }
    return located("reference function " + name_ + " " + message, options_.filename, line_, 1);
  }

  Diagnostic protocol_error() {
    broken_ = true;
    kill_all();
    return located("reference function " + name_ + " broke the verification protocol (did it write to fd 3 or 4?)",
                   options_.filename, line_, 1);
  }

  void kill_all() {
    for (auto& w : workers_)
      if (w->alive()) w->kill();
  }

  std::string case_text(const std::vector<std::vector<double>>& columns, long index) const {
    std::string s;
    for (std::size_t k = 0; k < columns.size() && k < names_.size(); ++k) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", columns[k][static_cast<std::size_t>(index)]);
      s += (s.empty() ? "" : ", ") + names_[k] + "=" + buf;
    }
    return s;
  }

  PythonReferenceOptions options_;
  WorkerLimits limits_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
  std::size_t wanted_ = 1;
  std::string name_;
  int line_ = 0;
  std::vector<std::string> names_;
  bool bound_ = false;
  bool broken_ = false;
};

}  // namespace

// Earlier builds embedded libpython in this process, and LeakSanitizer then
// needed to be told about the interpreter's allocations. The reference now
// runs in its own process, so nothing of CPython is left here to suppress;
// the hooks stay so that sanitizer builds keep stderr to one error line (no
// statistics of used suppressions) and any suppression file still parses.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpython3\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

bool python_reference_available(std::string* why) {
  std::string python = default_python();
  if (::access(python.c_str(), X_OK) != 0) {
    if (why) *why = "cannot run the python reference: '" + python + "' is not an executable";
    return false;
  }
  return true;
}

Result<std::unique_ptr<Reference>> make_python_reference(const PythonReferenceOptions& options) {
  if (!(options.max_seconds_per_case > 0)) return make_error("the reference's time budget must be positive");
  if (options.max_memory_bytes < (std::uint64_t(16) << 20))
    return make_error("the reference's memory limit must be at least 16 MiB");
  auto ref = std::make_unique<PythonReference>(options);
  if (Status s = ref->load_first(); !s) return s.error();
  return std::unique_ptr<Reference>(std::move(ref));
}

}  // namespace tc
