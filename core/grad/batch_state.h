#pragma once
// Private to core/grad: the batch tape's prepared state, shared by
// batch_tape.cpp (cases, threads, records) and batch_fast.cpp (the block
// kernels).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "grad/batch_gradients.h"
#include "grad/tape_impl.h"

namespace tc {

struct BatchBufferPool {
  std::mutex mu;
  std::vector<std::pair<std::size_t, double*>> free;  ///< (size, buffer)
  static constexpr std::size_t kKeep = 4;
  ~BatchBufferPool() {
    for (auto& [_, p] : free) delete[] p;
  }
  double* take(std::size_t size) {
    std::lock_guard<std::mutex> lock(mu);
    for (std::size_t k = 0; k < free.size(); ++k)
      if (free[k].first == size) {
        double* p = free[k].second;
        free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
        return p;
      }
    return new double[std::max<std::size_t>(size, 1)];
  }
  void give(std::size_t size, double* p) {
    std::lock_guard<std::mutex> lock(mu);
    if (free.size() >= kKeep) {
      delete[] free.front().second;
      free.erase(free.begin());
    }
    free.emplace_back(size, p);
  }
};

struct BatchGradientTape::State {
  using Impl = TapeImpl;
  GradientTape base;
  /// Copies of base's prepared form, one per worker (worker 0 is base's own).
  std::vector<std::unique_ptr<Impl>> extra;
  std::vector<std::string> input_names;
  std::vector<NodeId> input_ids;
  std::vector<std::size_t> input_rows, param_rows;  ///< leaf index -> row
  std::size_t n_input_leaves = 0, n_param_leaves = 0;
  /// A hybrid derivative rule may quote the failure of an unchosen value.
  bool keep_messages = false;
  bool busy = false;
  std::shared_ptr<BatchBufferPool> pool = std::make_shared<BatchBufferPool>();
  /// Every op of the cone has a block kernel (batch_fast.cpp): cases run
  /// kBlock at a time, one op over all of them at once, and only cases the
  /// block flags (any failure or non-finite value anywhere, even where the
  /// per-case semantics would not look) run the per-case code.
  bool fast = false;
  static constexpr std::size_t kBlock = 64;
  static constexpr std::size_t kMinBlockCases = 8;
  /// Per node: its column in a record's block (the values some derivative
  /// rule reads), or -1 for values the reverse pass never reads.
  std::vector<std::int32_t> slot_of;
  std::size_t nslots = 0;
  /// Constants, parameters and state that rules read: one value for every
  /// case, so a record keeps none of them; per node its column in the
  /// reverse pass's scratch U (or -1).
  std::vector<std::int32_t> uniform_of;
  std::vector<NodeId> uniform_ids;
  void assign_slots(const Impl& m);
  /// Per node: its column in the forward's block scratch T, or -1 for a node
  /// the forward never computes. A column is given back once the last node
  /// that reads it is done and reused for a later node, so the block's
  /// working set is the live values, not the whole circuit (767 columns of
  /// 64 doubles are 392 KiB, past L1 and most of L2; the live ones of a
  /// loop-shaped circuit fit L1). Leaves, outputs and the values a record
  /// keeps (slot_of) hold their column to the end. Set after assign_slots.
  std::vector<std::int32_t> col_of;
  std::size_t ncols = 0;
  /// Per node: 1 when the float64 forward tests its value for finiteness.
  /// An op the table marks kKeepsNonFinite (+ - * neg affine) gives a
  /// non-finite result for a non-finite argument, so a value read only by
  /// such ops is tested where they are; values some other op reads (which
  /// may launder it: a comparison, a select, relu, sigmoid, a division) and
  /// the outputs are tested themselves. Every non-finite value of a lane
  /// thus still flags it.
  std::vector<std::uint8_t> finite_check;
  void assign_columns(const Impl& m);
  /// Per worker, kept between calls (fresh buffers of this size cost page
  /// faults on every call): the forward block, and the reverse's adjoints,
  /// reached lanes and leaf gradients.
  struct Scratch {
    std::vector<double> T, A, G, U;
    std::vector<std::uint8_t> R;
  };
  std::vector<Scratch> scratch;
  Scratch& scratch_of(std::size_t w, const Impl& m) {
    if (scratch.size() <= w) scratch.resize(w + 1);
    Scratch& s = scratch[w];
    if (s.T.empty()) {
      const std::size_t n = m.nodes.size() * kBlock;
      s.T.resize(std::max<std::size_t>(ncols, 1) * kBlock);
      s.A.resize(n);
      s.R.resize(n);
      s.G.resize(std::max<std::size_t>(m.leaves.size(), 1) * kBlock);
      s.U.resize(std::max<std::size_t>(uniform_ids.size(), 1) * kBlock);
    }
    return s;
  }

  /// Block forward over `lanes` cases from `start`: node id's values at
  /// T[col_of[id] * kBlock + lane] (valid at the end for the nodes that hold
  /// their column); flag[lane] != 0 for a case the block cannot
  /// vouch for. Inputs from the columns, parameters and state from `fixed`.
  static void fast_forward(Impl& m, double* T, const std::int32_t* col_of, const std::uint8_t* finite_check,
                           std::size_t start, std::size_t lanes,
                           std::span<const std::span<const double>> columns, const std::vector<NodeId>& input_ids,
                           const std::vector<std::pair<std::size_t, double>>& fixed, bool fixed_ok, double* flag);
  /// Block reverse over the lanes with active[lane], reading node id's values
  /// at T[slot_of[id] * kBlock + lane] (U[uniform_of[id] * kBlock + lane]
  /// for the uniform ones): writes per lane and
  /// reported leaf the gradient into G[leaf * kBlock + lane]; A and R are
  /// adjoint and reached scratch of kBlock values per node.
  static void fast_reverse(Impl& m, const double* T, const double* U, const State& st, std::size_t start,
                           std::size_t lanes,
                           std::span<const std::span<const double>> seeds, const std::uint8_t* active, double* A,
                           std::uint8_t* R, double* G);
  static bool fast_eligible(const Impl& m);

  explicit State(GradientTape t) : base(std::move(t)) {}
  Impl& worker(std::size_t k) { return k == 0 ? *base.impl_ : *extra[k - 1]; }
  void ensure_workers(std::size_t n) {
    while (extra.size() + 1 < n) {
      auto w = std::make_unique<Impl>(*base.impl_);
      w->use_own_tables();
      extra.push_back(std::move(w));
    }
  }
};

}  // namespace tc
