// The CPython reference (see python_reference.h): a Reference that hands
// blocks of cases to worker processes running python_driver.py and turns
// their replies into Outcomes. The process, its limits and the watchdog are
// worker_process.cpp's; the Python side is python_driver.py's.
#include "verify/python_reference.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <thread>
#include <unistd.h>

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

// ---- the payloads of python_driver.py's protocol (see its docstring) -------

void put_str(std::string& out, std::string_view text) {
  auto n = static_cast<std::uint32_t>(text.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  out.append(text);
}

/// Reads payload fields in order; any read past the end marks it bad.
class Fields {
 public:
  explicit Fields(const std::string& payload) : p_(payload) {}
  std::string str() {
    std::uint32_t n = u32();
    if (!ok_ || p_.size() - pos_ < n) return fail<std::string>();
    std::string s = p_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::uint32_t u32() { return raw<std::uint32_t>(); }
  std::int32_t i32() { return raw<std::int32_t>(); }
  std::int64_t i64() { return raw<std::int64_t>(); }
  /// Every field read, nothing left over.
  [[nodiscard]] bool complete() const { return ok_ && pos_ == p_.size(); }

 private:
  template <class T>
  T raw() {
    T v{};
    if (!ok_ || p_.size() - pos_ < sizeof v) return fail<T>();
    std::memcpy(&v, p_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <class T>
  T fail() {
    ok_ = false;
    return T{};
  }
  const std::string& p_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

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
    // An inherited hard limit below the request would make every worker
    // fail its setrlimit: the worker gets the inherited one instead.
    limits_.memory_bytes = reference_memory_limit(options_.max_memory_bytes);
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
    std::string request;
    auto n = static_cast<std::uint32_t>(inputs.size());
    request.append(reinterpret_cast<const char*>(&n), 4);
    for (const CaseInput& in : inputs) {
      put_str(request, in.name);
      request.push_back(in.domain.is_integral() ? '\1' : '\0');
    }
    names_.clear();
    for (const CaseInput& in : inputs) names_.push_back(in.name);
    auto replies = round_trip('B', request, nullptr);
    if (!replies) return replies.error();
    for (const WorkerReply& r : *replies) {
      if (r.kind == 'O' && r.payload.empty()) continue;
      Fields f(r.payload);
      std::string problem = f.str();
      f.i32();
      f.i32();
      if (r.kind != 'X' || !f.complete()) return protocol_error();
      return located("reference function " + name_ + " " + problem, options_.filename, line_, 1);
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
        Fields f(r.payload);
        std::string why = f.str();
        const std::int64_t c = f.i64();
        if (!f.complete()) return protocol_error();
        if (why == "ran out of its memory limit") why = "ran out of its " + mib_text(limits_.memory_bytes) + " memory limit";
        std::string where = c >= 0 && static_cast<std::size_t>(c) < n
                                ? " on the case " + case_text(columns, static_cast<long>(first[i] + static_cast<std::size_t>(c)))
                                : "";
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
    for (const WorkerReply& r : replies)
      if (r.kind != 'O' || !r.payload.empty()) return protocol_error();
    return ok_status();
  }

  std::string python() const { return options_.python.empty() ? default_python() : options_.python; }

  /// Sends the load request to `set` and checks every reply names the same function.
  Status load(const std::vector<WorkerProcess*>& set) {
    std::string request;
    for (const std::string* field : {&options_.source, &options_.filename, &options_.function,
                                     &options_.preferred_function})
      put_str(request, *field);
    for (WorkerProcess* w : set) w->send('L', request);
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
      Fields f(r.payload);
      std::string text = f.str();
      const int line = f.i32();
      const int column = r.kind == 'X' ? f.i32() : 0;
      if ((r.kind != 'O' && r.kind != 'X') || !f.complete()) return protocol_error();
      if (r.kind == 'X') return located(text, options_.filename, line, column);
      name_ = std::move(text);
      line_ = line;
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

const char* python_driver_source() { return kPythonDriver; }

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
