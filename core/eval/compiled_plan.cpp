// The compiled plan (compiled_plan.h): compiling, caching and loading the
// kernel, the Auto rule, and running cases through it.
#include "eval/compiled_plan.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "eval/batch_columns.h"
#include "eval/prepared.h"

#ifndef __EMSCRIPTEN__
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

namespace tc::eval_detail {

namespace {

namespace fs = std::filesystem;

// The Auto rule's estimates (docs/evaluator.md, "The compiled plan"),
// measured with bench/eval_bench on long_loop: interpreter time per node
// evaluation, and the time to write, compile and load a plan.
constexpr double kBatchNodeS = 0.05e-9;   ///< run_batch, per node and case
constexpr double kScalarNodeS = 5e-9;     ///< run(), per node
constexpr double kProbeNodeS = 15e-6;     ///< writing the source and finding it in the cache, per node
constexpr double kCompileBaseS = 0.05;    ///< starting the compiler
/// Compiling (gcc -O1), per node: long_loop (3,002 nodes) 0.5-0.8 s, the
/// 1,805-node branchy loop 1.9 s on the AVX2 host (issue 34's code shape).
constexpr double kCompileNodeS = 0.5e-3;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Two FNV-1a hashes with different offsets, as 32 hex digits.
std::string hash_hex(const std::string& text) {
  std::uint64_t a = 14695981039346656037ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char ch : text) {
    a = (a ^ ch) * 1099511628211ull;
    b = (b ^ ch) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
  return buf;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

#ifndef __EMSCRIPTEN__

/// Where plans are kept: $TC_CACHE_DIR, else $XDG_CACHE_HOME/tensorcode,
/// else ~/.cache/tensorcode, else the temporary directory.
fs::path cache_dir() {
  if (const char* d = std::getenv("TC_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "tensorcode";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "tensorcode";
  return fs::temp_directory_path() / ("tensorcode-" + std::to_string(getuid()));
}

/// Runs argv (PATH lookup) and returns its exit status (-1 when it could
/// not start), with stdout and stderr together in `out` (at most 64 KiB
/// kept). A pipe rather than a file, so a process killed while the compiler
/// runs leaves nothing behind in the cache.
int run_process(const std::vector<std::string>& argv, std::string& out) {
  out.clear();
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  // Close-on-exec, so a compiler started by another thread at the same
  // time does not hold this pipe open.
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return -1;
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      if (out.size() < 65536) out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The compiler ($TC_CC, else cc) and its flags: no contraction and no
/// fast-math, so every operation is the IEEE one the interpreter performs;
/// -march=native, the ISA the evaluator's Highway dispatch picks here (with
/// 512-bit vectors preferred where AVX-512 is there, as Highway uses them).
struct Compiler {
  std::string cc;
  std::vector<std::string> flags;
  std::string version;  ///< `cc --version`, part of the cache key; empty: not usable
  std::string why;      ///< why it is not usable
};

const Compiler& compiler() {
  static std::mutex m;
  static std::map<std::string, Compiler> seen;
  const char* env = std::getenv("TC_CC");
  const std::string cc = env && *env ? env : "cc";
  std::lock_guard<std::mutex> lock(m);
  auto it = seen.find(cc);
  if (it != seen.end()) return it->second;
  Compiler c;
  c.cc = cc;
  std::string version;
  const int rc = run_process({cc, "--version"}, version);
  if (rc == 0) c.version = version;
  // -O1 and, for GCC, no temporary-expression replacement: the block's
  // statements stay in the written order, copies of a node interleaved, so
  // independent chains overlap (GCC otherwise emits one chain after another
  // and long_loop runs 3x slower); -O2 is slower to compile and no faster.
  // The target's -march comes with the source (PlanSource::flags).
  c.flags = {"-std=gnu99", "-O1", "-ffp-contract=off", "-fno-fast-math", "-fno-trapping-math", "-fPIC", "-shared"};
  if (c.version.find("clang") == std::string::npos) c.flags.push_back("-fno-tree-ter");
  if (c.version.empty()) c.why = "no C compiler: '" + cc + "' " + (rc < 0 ? "could not be started" : "--version failed") + " (set TC_CC)";
  return seen.emplace(cc, std::move(c)).first->second;
}

#endif  // __EMSCRIPTEN__

}  // namespace

Result<std::shared_ptr<const CompiledKernel>> load_plan(PlanSource src, bool probe_only) {
#ifdef __EMSCRIPTEN__
  (void)src;
  (void)probe_only;
  return make_error("no compiled plan in the WebAssembly build");
#else
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path dir = cache_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("the plan cache '" + dir.string() + "' cannot be created: " + ec.message());
  const Compiler& cc = compiler();
  if (!cc.why.empty()) return make_error(cc.why);
  std::string key_text = src.text + "\n" + cc.cc + "\n" + cc.version;
  for (const auto& f : cc.flags) key_text += " " + f;
  for (const auto& f : src.flags) key_text += " " + f;
  const std::string key = hash_hex(key_text);
  const fs::path so = dir / ("plan-" + key + ".so"), c_file = dir / ("plan-" + key + ".c");
  auto k = std::make_shared<CompiledKernel>();
  // A hit must hold this very source (a hash collision compiles anew).
  k->cache_hit = fs::exists(so, ec) && read_text(c_file) == src.text;
  if (!k->cache_hit) {
    if (probe_only) return make_error("not in the plan cache");
    const std::string tag = std::to_string(getpid()) + "." +
                            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    const fs::path tmp_c = dir / ("plan-" + key + "." + tag + ".c"), tmp_so = dir / ("plan-" + key + "." + tag + ".so");
    if (!write_text(tmp_c, src.text)) return make_error("cannot write '" + tmp_c.string() + "'");
    std::vector<std::string> argv{cc.cc};
    argv.insert(argv.end(), cc.flags.begin(), cc.flags.end());
    argv.insert(argv.end(), src.flags.begin(), src.flags.end());
    argv.insert(argv.end(), {"-o", tmp_so.string(), tmp_c.string(), "-lm"});
    std::string msg;
    const int rc = run_process(argv, msg);
    if (rc != 0) {
      if (msg.size() > 400) msg.resize(400);
      fs::remove(tmp_c, ec);
      fs::remove(tmp_so, ec);
      return make_error("'" + cc.cc + "' failed on the compiled plan (exit " + std::to_string(rc) + "): " + msg);
    }
    // Whole files only: another process may look the key up at any time.
    fs::rename(tmp_so, so, ec);
    if (!ec) fs::rename(tmp_c, c_file, ec);
    if (ec) {
      fs::remove(tmp_c, ec);
      fs::remove(tmp_so, ec);
      return make_error("cannot store the compiled plan in '" + dir.string() + "'");
    }
  }
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return make_error(std::string("cannot load the compiled plan: ") + dlerror());
  k->handle = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  k->one = reinterpret_cast<CompiledKernel::OneFn>(dlsym(h, "tc_plan_one"));
  k->block = reinterpret_cast<CompiledKernel::BlockFn>(dlsym(h, "tc_plan_block"));
  if (!k->one || !k->block) return make_error("the compiled plan '" + so.string() + "' lacks its functions");
  k->path = so.string();
  k->src = std::move(src);
  k->seconds = seconds_since(t0);
  return std::shared_ptr<const CompiledKernel>(std::move(k));
#endif
}

void PlanState::try_load(const Prepared& p, bool probe_only) {
#ifdef __EMSCRIPTEN__
  // Nothing can ever load here (load_plan): writing the C source first cost
  // chain1024 (5122 nodes) tens of ms of its first batch in the browser.
  (void)p;
  (void)probe_only;
  failed_ = true;
  reason_ = "no compiled plan in the WebAssembly build";
  return;
#endif
  const auto t0 = std::chrono::steady_clock::now();
  auto src = compiled_source(p);
  if (!src) {
    failed_ = true;
    reason_ = src.error().message;
    return;
  }
  auto k = load_plan(std::move(*src), probe_only);
  if (!k) {
    if (!probe_only) failed_ = true;
    reason_ = k.error().message;
    return;
  }
  auto loaded = std::const_pointer_cast<CompiledKernel>(*k);
  loaded->seconds = seconds_since(t0);  // with the source's writing
  kernel_ = std::move(loaded);
  reason_.clear();
  ready_.store(kernel_.get(), std::memory_order_release);
}

const CompiledKernel* PlanState::kernel_for(const Prepared& p, double node_cases, bool batched) {
  if (const CompiledKernel* k = ready_.load(std::memory_order_acquire)) return k;
  if (choice_ == EvalPlan::Interpreter || failed_.load(std::memory_order_relaxed)) return nullptr;
  // Auto, ski rental: once the interpreter has spent (with this call) about
  // what finding the plan costs, look in the cache; once it has spent what
  // compiling costs, compile. Neither path costs more than twice the better.
  const double nodes = static_cast<double>(p.order.size());
  const double probe_at = nodes * kProbeNodeS, compile_at = kCompileBaseS + nodes * kCompileNodeS;
  double spent = 0.0;
  if (choice_ == EvalPlan::Auto) {
    const double add = node_cases * (batched ? kBatchNodeS : kScalarNodeS);
    double before = spent_s_.load(std::memory_order_relaxed);
    while (!spent_s_.compare_exchange_weak(before, before + add, std::memory_order_relaxed)) {
    }
    spent = before + add;
    const bool due = (!probed_.load(std::memory_order_relaxed) && spent >= probe_at) || spent >= compile_at;
    if (!due) return nullptr;
  }
  std::lock_guard<std::mutex> lock(m_);
  if (kernel_ || failed_) return kernel_.get();
  if (choice_ == EvalPlan::Compiled) {
    try_load(p, false);
    return kernel_.get();
  }
  if (!probed_ && spent >= probe_at) {
    probed_ = true;
    try_load(p, true);
    if (kernel_ || failed_) return kernel_.get();
  }
  if (spent >= compile_at) try_load(p, false);
  return kernel_.get();
}

PlanStatus PlanState::status() const {
  std::lock_guard<std::mutex> lock(m_);
  PlanStatus s;
  s.compiled = kernel_ != nullptr;
  s.reason = choice_ == EvalPlan::Interpreter ? "the interpreter was chosen (EvalPlan::Interpreter)" : reason_;
  if (kernel_) {
    s.cache_hit = kernel_->cache_hit;
    s.compile_seconds = kernel_->seconds;
    s.path = kernel_->path;
  }
  return s;
}

namespace {

void fill_prm(const CompiledKernel& k, const Fixed& fixed, std::vector<double>& prm) {
  prm.resize(std::max<std::size_t>(1, k.src.prm.size()));
  for (std::size_t j = 0; j < k.src.prm.size(); ++j) {
    const auto [is_state, slot] = k.src.prm[j];
    prm[j] = is_state ? fixed.states[slot] : fixed.params[slot];
  }
}

}  // namespace

bool run_case_compiled(const CompiledKernel& k, const Prepared& p, const double* inputs, const Fixed& fixed,
                       CaseResult& out) {
  thread_local std::vector<double> prm, values;
  fill_prm(k, fixed, prm);
  values.resize(k.src.outputs);
  if (k.one(inputs, prm.data(), values.data()) != 0) return false;
  const std::size_t nout = p.program.outputs.size();
  out.outputs.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(nout));
  out.next_state.assign(values.begin() + static_cast<std::ptrdiff_t>(nout), values.end());
  return true;
}

Status run_batch_compiled(const CompiledKernel& k, const Prepared& p, std::span<const std::span<const double>> columns,
                          std::size_t count, const Env& fixed_env, BatchResult& out, unsigned threads) {
  if (Status s = check_batch_columns(p, columns, count); !s) return s;
  auto fixed = resolve_fixed(p, fixed_env);
  if (!fixed) return fixed.error();
  std::vector<double> prm;
  fill_prm(k, *fixed, prm);
  const std::size_t nout = p.program.outputs.size(), nupd = p.program.updates.size();
  out.count = count;
  out.outputs.assign(nout, std::vector<double>(count, kNaNOf<double>));
  out.next_state.assign(nupd, std::vector<double>(count, kNaNOf<double>));
  out.failed.assign(count, 0);
  out.errors.clear();
  if (count == 0) return ok_status();

  // Cases per kernel call: long enough to amortise the call, short enough
  // that the flags stay in cache. Chunks of whole blocks go to the threads;
  // each keeps its errors apart, joined in chunk order (thread-count proof).
  constexpr std::size_t kBlock = 1024;
  const std::size_t nthreads = threads == 0 ? static_cast<std::size_t>(tbb::info::default_concurrency()) : threads;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  const std::size_t chunk = kBlock * std::max<std::size_t>(1, std::min<std::size_t>(16, blocks / (nthreads * 4)));
  const std::size_t nchunks = (count + chunk - 1) / chunk;
  auto run_chunk = [&](std::size_t begin, std::size_t end, std::vector<std::pair<std::size_t, Diagnostic>>& errors) {
    std::vector<const double*> in(std::max<std::size_t>(1, columns.size()));
    std::vector<double*> outp(std::max<std::size_t>(1, nout + nupd));
    std::vector<int> flags(kBlock);
    Workspace ws;
    std::vector<double> case_inputs(p.inputs.size());
    Diagnostic err;
    for (std::size_t start = begin; start < end; start += kBlock) {
      const std::size_t m = std::min(kBlock, end - start);
      for (std::size_t c = 0; c < columns.size(); ++c) in[c] = columns[c].data() + start;
      for (std::size_t o = 0; o < nout; ++o) outp[o] = out.outputs[o].data() + start;
      for (std::size_t u = 0; u < nupd; ++u) outp[nout + u] = out.next_state[u].data() + start;
      k.block(static_cast<long>(m), in.data(), prm.data(), outp.data(), flags.data());
      for (std::size_t i = 0; i < m; ++i)
        if (flags[i]) rerun_case(p, columns, start + i, *fixed, ws, case_inputs, err, out, errors);
    }
  };
  if (nthreads <= 1 || nchunks <= 1) {
    run_chunk(0, count, out.errors);
    return ok_status();
  }
  std::vector<std::vector<std::pair<std::size_t, Diagnostic>>> errors(nchunks);
  tbb::task_arena arena(static_cast<int>(nthreads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nchunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t c = r.begin(); c < r.end(); ++c) run_chunk(c * chunk, std::min(count, (c + 1) * chunk), errors[c]);
    });
  });
  for (auto& e : errors)
    for (auto& item : e) out.errors.push_back(std::move(item));
  return ok_status();
}

}  // namespace tc::eval_detail
