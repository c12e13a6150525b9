// The work split between ranks: verify's case ranges, shards of JSON Lines
// inputs, fit's gradient sums, and output joined in input order.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common.h"
#include "mpi_backend.h"
#include "mpi_wire.h"
#include "scale/partition.h"

namespace tc::cli::scale::mpi {

namespace {

constexpr int kTagProgress = 101, kTagProgressEnd = 102, kTagText = 103, kTagFailed = 104;
constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are int
const char* const kRemoteFailure = "stopped because another process failed";

/// Rank 0's view of everybody's progress. Ranks > 0 send their count of
/// finished cases at most five times a second; rank 0 adds them to its own
/// and draws the total through the command's own Progress. close() drains
/// the messages (each rank ends its stream with an end message, and
/// messages from one rank arrive in order), so none is left pending.
class CombinedProgress final : public Progress {
 public:
  CombinedProgress(Progress* inner, std::uint64_t total)
      : inner_(inner), total_(total), others_(static_cast<std::size_t>(size()), 0),
        thread_(std::this_thread::get_id()) {}

  void update(std::uint64_t done, std::uint64_t, std::string_view what) override {
    if (std::this_thread::get_id() != thread_) return;  // MPI is called from the main thread only
    mine_ = done;
    what_ = std::string(what);
    if (rank() == 0) {
      int flag = 1;
      while (flag) {
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, kTagProgress, MPI_COMM_WORLD, &flag, &st);
        if (flag) receive(st.MPI_SOURCE, kTagProgress);
      }
      draw();
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    if (pending_ != MPI_REQUEST_NULL) {
      int done_sending = 0;
      MPI_Test(&pending_, &done_sending, MPI_STATUS_IGNORE);
      if (!done_sending) return;
    }
    last_ = now;
    sent_ = done;
    MPI_Isend(&sent_, 1, MPI_UINT64_T, 0, kTagProgress, MPI_COMM_WORLD, &pending_);
  }

  /// Also true once a lower rank has failed: its error comes first in case
  /// order, so what this rank would still find cannot be reported.
  [[nodiscard]] bool cancelled() const override {
    if (inner_ && inner_->cancelled()) return true;
    if (overtaken_ || std::this_thread::get_id() != thread_) return overtaken_;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagFailed, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    overtaken_ = flag != 0;  // the message itself is received after the range (verify)
    return overtaken_;
  }
  [[nodiscard]] bool overtaken() const { return overtaken_; }

  /// Collective-free end of the progress stream; rank 0 keeps drawing while
  /// it waits for the others to finish their ranges.
  void close() {
    if (rank() != 0) {
      if (pending_ != MPI_REQUEST_NULL) MPI_Wait(&pending_, MPI_STATUS_IGNORE);
      std::uint64_t last = mine_;
      MPI_Send(&last, 1, MPI_UINT64_T, 0, kTagProgressEnd, MPI_COMM_WORLD);
      return;
    }
    for (int ended = 0; ended < size() - 1;) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG != kTagProgress && st.MPI_TAG != kTagProgressEnd) continue;  // not ours: cannot happen
      if (st.MPI_TAG == kTagProgressEnd) ++ended;
      receive(st.MPI_SOURCE, st.MPI_TAG);
      draw();
    }
  }

 private:
  void receive(int source, int tag) {
    std::uint64_t v = 0;
    MPI_Recv(&v, 1, MPI_UINT64_T, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    others_[static_cast<std::size_t>(source)] = v;
  }
  void draw() {
    if (!inner_) return;
    std::uint64_t done = mine_;
    for (std::size_t r = 1; r < others_.size(); ++r) done += others_[r];
    inner_->update(done, total_, what_.empty() ? "cases" : what_);
  }

  Progress* inner_;
  mutable bool overtaken_ = false;
  std::uint64_t total_, mine_ = 0, sent_ = 0;
  std::vector<std::uint64_t> others_;
  std::string what_;
  std::thread::id thread_;
  MPI_Request pending_ = MPI_REQUEST_NULL;
  std::chrono::steady_clock::time_point last_{};
};

void send_text(const std::string& text, int to) {
  std::uint64_t n = text.size();
  MPI_Send(&n, 1, MPI_UINT64_T, to, kTagText, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < text.size(); at += kChunk) {
    const std::size_t m = std::min(kChunk, text.size() - at);
    MPI_Send(text.data() + at, static_cast<int>(m), MPI_CHAR, to, kTagText, MPI_COMM_WORLD);
  }
}

std::string receive_text(int from) {
  std::uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, kTagText, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string text(static_cast<std::size_t>(n), '\0');
  for (std::size_t at = 0; at < text.size(); at += kChunk) {
    const std::size_t m = std::min(kChunk, text.size() - at);
    MPI_Recv(text.data() + at, static_cast<int>(m), MPI_CHAR, from, kTagText, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return text;
}

class Reduction final : public FitReduction {
 public:
  Status all_sum(std::span<double> sums, bool failed) override {
    // One Allreduce carries the sums and the count of failed shards. MPI's
    // reduction of a commutative sum gives every rank the same bits (each
    // element is combined by the same pairwise additions), so every rank
    // applies the same update.
    buffer_.assign(sums.begin(), sums.end());
    buffer_.push_back(failed ? 1.0 : 0.0);
    MPI_Allreduce(MPI_IN_PLACE, buffer_.data(), static_cast<int>(buffer_.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    if (buffer_.back() != 0.0) return with_code(make_error(kRemoteFailure), DiagCode::RemoteFailure);
    std::copy(buffer_.begin(), buffer_.end() - 1, sums.begin());
    return ok_status();
  }

 private:
  std::vector<double> buffer_;
};

/// The error a step returns after a failed agreement. A rank that stopped
/// on its own before the step (it could not read the program, say) took
/// part through its exit agreement, with key UINT64_MAX and its whole error
/// line: rank 0 prints that line here, and the step returns the
/// remote-failure error, which the commands do not print again.
Diagnostic failure_error(const Failure& f) {
  if (f.key != UINT64_MAX) return make_error(f.message);
  if (rank() == 0 && !f.message.empty()) std::fprintf(stderr, "%s\n", f.message.c_str());
  return with_code(make_error(kRemoteFailure), DiagCode::RemoteFailure);
}

}  // namespace

std::unique_ptr<Progress> combined_progress(Progress* inner, std::uint64_t total) {
  return std::make_unique<CombinedProgress>(inner, total);
}

void close_progress(Progress& combined) { static_cast<CombinedProgress&>(combined).close(); }

Result<LineInput> open_lines(const std::string& path, const std::string& what) {
  std::optional<Failure> mine;
  Result<LineShard> shard = make_error("");
  if (!std::ifstream(path, std::ios::binary)) {
    mine = Failure{0, kRejected, "cannot open " + what + " '" + path + "'"};
  } else {
    shard = read_line_shard(path, rank(), size());
    if (!shard) mine = Failure{0, kRejected, shard.error().message};
  }
  if (auto f = mpi::first_failure(std::move(mine))) return failure_error(*f);
  // Line numbers continue across shards: rank r starts after the lines of
  // ranks 0 .. r-1.
  std::vector<std::uint64_t> newlines(static_cast<std::size_t>(size()));
  std::uint64_t own = shard->newlines;
  MPI_Allgather(&own, 1, MPI_UINT64_T, newlines.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  LineInput input;
  for (int r = 0; r < rank(); ++r) input.first_line += newlines[static_cast<std::size_t>(r)];
  input.stream = std::make_unique<std::istringstream>(std::move(shard->text));
  return input;
}

Result<VerifyReport> verify(const Program& program, Reference& reference, const VerifyOptions& options) {
  // Every rank plans the same cases (enumeration, the supplied file, or the
  // same seeded samples), so a plan error is the same everywhere too.
  // Every rank is here, or stopped before and meets this agreement with its
  // exit agreement; past it, each rank sends rank 0 its progress to the end.
  if (auto f = mpi::first_failure(std::nullopt)) return failure_error(*f);
  auto cases = plan_verify_cases(program, options);
  if (!cases) return cases.error();
  const IndexRange range = rank_range(cases->size(), rank(), size());
  CombinedProgress progress(options.progress, cases->size());
  VerifyOptions local = options;
  local.progress = &progress;
  local.first_case = static_cast<std::size_t>(range.begin);
  local.end_case = static_cast<std::size_t>(range.end);
  // An empty range (more ranks than cases) runs nothing; verify() would
  // still load and bind the reference, which is harmless.
  auto part = tc::verify_planned(program, reference, local, *cases);
  if (part) record_share("verify", range.end - range.begin);
  // A rank that failed tells the ranks after it, which stop early (their
  // cases come later, so no error of theirs would be reported).
  const int sent = !part && !progress.overtaken() ? 1 : 0;
  if (sent) {
    const int one = 1;
    for (int r = rank() + 1; r < size(); ++r) MPI_Send(&one, 1, MPI_INT, r, kTagFailed, MPI_COMM_WORLD);
  }
  progress.close();
  // Receive exactly the notices that were sent, so none is left pending.
  std::vector<int> senders(static_cast<std::size_t>(size()));
  MPI_Allgather(&sent, 1, MPI_INT, senders.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < rank(); ++q)
    if (senders[static_cast<std::size_t>(q)]) {
      int one = 0;
      MPI_Recv(&one, 1, MPI_INT, q, kTagFailed, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  // An error in an earlier range is the one a single process meets first.
  std::optional<Failure> mine;
  if (!part) {
    WireWriter w;
    write_diagnostic(w, part.error());
    mine = Failure{static_cast<std::uint64_t>(rank()), kRejected, w.take()};
  }
  if (auto f = mpi::first_failure(std::move(mine))) {
    if (f->key == UINT64_MAX) return failure_error(*f);
    WireReader r(f->message);
    return read_diagnostic(r);
  }
  // Rank 0 joins the partial reports in rank order, that is case order.
  const std::string bytes = write_report(*part);
  int length = static_cast<int>(bytes.size());
  std::vector<int> lengths(static_cast<std::size_t>(size())), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank() == 0) {
    int at = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = at;
      at += lengths[r];
    }
    all.resize(static_cast<std::size_t>(at));
  }
  MPI_Gatherv(bytes.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  VerifyReport report;
  std::uint64_t summary[3] = {0, 0, 0};
  if (rank() == 0) {
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      bool ok = false;
      VerifyReport next = read_report(all.substr(static_cast<std::size_t>(offsets[r]),
                                                 static_cast<std::size_t>(lengths[r])), ok);
      TC_ASSERT(ok);
      if (r == 0)
        report = std::move(next);
      else
        merge_report(report, std::move(next), options.max_reported);
    }
    // The whole plan ran, over all ranks: the report says so whatever a
    // partial report says about its own range.
    report.cases = cases->size();
    report.planned_cases = cases->size();
    report.exhaustive = cases->exhaustive();
    report.passed = report.mismatch_count == 0;
    summary[0] = report.cases;
    summary[1] = report.mismatch_count;
    summary[2] = report.exhaustive ? 1 : 0;
  }
  MPI_Bcast(summary, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank() != 0) {
    report.cases = static_cast<std::size_t>(summary[0]);
    report.mismatch_count = static_cast<std::size_t>(summary[1]);
    report.planned_cases = report.cases;
    report.exhaustive = summary[2] != 0;
    report.passed = report.mismatch_count == 0;
  }
  return report;
}

FitReduction* fit_reduction() {
  static Reduction reduction;
  return &reduction;
}

bool is_remote_failure(const Diagnostic& d) { return d.code == DiagCode::RemoteFailure; }

int write_ordered(const std::string& path, const std::string& text) {
  if (rank() != 0) {
    send_text(text, 0);
    return kOk;
  }
  const bool to_stdout = path.empty() || path == "-";
  if (to_stdout) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    for (int r = 1; r < size(); ++r) {
      const std::string part = receive_text(r);
      std::fwrite(part.data(), 1, part.size(), stdout);
    }
    std::fflush(stdout);
    return kOk;
  }
  std::string all = text;
  for (int r = 1; r < size(); ++r) all += receive_text(r);
  return write_output(path, all);
}

}  // namespace tc::cli::scale::mpi
