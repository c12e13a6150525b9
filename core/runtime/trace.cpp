#include "runtime/trace.h"

#include <cmath>

#include "runtime/runtime.h"

namespace tc {

namespace {

constexpr std::size_t kBitsPerWord = 64;

// Two recorded values are the same when both are absent, or both present and
// equal (NaN never occurs in a committed step: it is an error).
bool same(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || *a == *b;
}

// Where a node's value can be read without re-evaluation.
struct StoredColumn {
  enum Kind { None, Input, Output, State } kind = None;
  std::size_t index = 0;
};

StoredColumn stored_column(const StepTrace& t, NodeId node) {
  for (std::size_t i = 0; i < t.input_ids().size(); ++i)
    if (t.input_ids()[i] == node) return {StoredColumn::Input, i};
  for (std::size_t i = 0; i < t.output_ids().size(); ++i)
    if (t.output_ids()[i] == node) return {StoredColumn::Output, i};
  for (std::size_t i = 0; i < t.state_ids().size(); ++i)
    if (t.state_ids()[i] == node) return {StoredColumn::State, i};
  return {};
}

double stored_value(const StepTrace& t, const StoredColumn& c, std::size_t row) {
  switch (c.kind) {
    case StoredColumn::Input: return t.inputs(row)[c.index];
    case StoredColumn::Output: return t.outputs(row)[c.index];
    case StoredColumn::State: return t.state_before(row)[c.index];
    case StoredColumn::None: break;
  }
  TC_ASSERT(false);
  return 0;
}

// Reads values of `node` row by row, from the columns or by re-evaluation.
class NodeReader {
 public:
  NodeReader(const Runtime& rt, const StepTrace& t, NodeId node)
      : rt_(rt), t_(t), node_(node), column_(stored_column(t, node)) {}

  Result<std::optional<double>> at(std::size_t row) {
    if (column_.kind != StoredColumn::None) return std::optional<double>(stored_value(t_, column_, row));
    auto values = evaluate_row(rt_, t_, row);
    if (!values) return values.error();
    const auto i = static_cast<std::size_t>(node_);
    if (!values->computed[i]) return std::optional<double>();
    return std::optional<double>(values->values[i]);
  }

 private:
  const Runtime& rt_;
  const StepTrace& t_;
  NodeId node_;
  StoredColumn column_;
};

Status check_node(const Runtime& rt, NodeId node) {
  if (node < 0 || static_cast<std::size_t>(node) >= rt.program().nodes.size())
    return make_error("node " + std::to_string(node) + " is not in the program");
  return ok_status();
}

}  // namespace

void StepTrace::begin(const Runtime& runtime) {
  const Program& p = runtime.program();
  input_ids_ = runtime.evaluator().input_ids();
  output_ids_.clear();
  for (const auto& [_, id] : p.outputs) output_ids_.push_back(id);
  state_ids_ = runtime.state_ids();
  select_ids_ = p.nodes_of(Op::Select);
  select_index_.assign(p.nodes.size(), -1);
  for (std::size_t k = 0; k < select_ids_.size(); ++k) select_index_[static_cast<std::size_t>(select_ids_[k])] = int(k);
  start_state_ = runtime.state();
  first_step_ = runtime.steps();
  rows_ = 0;
  inputs_.clear();
  outputs_.clear();
  states_.clear();
  branches_.clear();
}

void StepTrace::clear_rows() {
  rows_ = 0;
  inputs_.clear();
  outputs_.clear();
  states_.clear();
  branches_.clear();
}

std::span<const double> StepTrace::inputs(std::size_t row) const {
  TC_ASSERT(row < rows_);
  return {inputs_.data() + row * input_ids_.size(), input_ids_.size()};
}

std::span<const double> StepTrace::outputs(std::size_t row) const {
  TC_ASSERT(row < rows_);
  return {outputs_.data() + row * output_ids_.size(), output_ids_.size()};
}

std::span<const double> StepTrace::state_after(std::size_t row) const {
  TC_ASSERT(row < rows_);
  return {states_.data() + row * state_ids_.size(), state_ids_.size()};
}

std::span<const double> StepTrace::state_before(std::size_t row) const {
  TC_ASSERT(row < rows_);
  if (row == 0) return start_state_;
  return state_after(row - 1);
}

std::int8_t StepTrace::branch(std::size_t row, std::size_t k) const {
  TC_ASSERT(row < rows_ && k < select_ids_.size());
  const std::size_t bit = 2 * (row * select_ids_.size() + k);
  const std::uint64_t code = (branches_[bit / kBitsPerWord] >> (bit % kBitsPerWord)) & 3u;
  if (!(code & 1u)) return kNotEvaluated;
  return (code & 2u) ? kYes : kNo;
}

std::int8_t StepTrace::branch_of(std::size_t row, NodeId select) const {
  if (select < 0 || static_cast<std::size_t>(select) >= select_index_.size()) return kNotEvaluated;
  const int k = select_index_[static_cast<std::size_t>(select)];
  return k < 0 ? kNotEvaluated : branch(row, static_cast<std::size_t>(k));
}

void StepTrace::append(std::span<const double> inputs, std::span<const double> outputs,
                       std::span<const double> state_after, const CaseTrace& node_trace) {
  TC_ASSERT(inputs.size() == input_ids_.size() && outputs.size() == output_ids_.size() &&
            state_after.size() == state_ids_.size());
  inputs_.insert(inputs_.end(), inputs.begin(), inputs.end());
  outputs_.insert(outputs_.end(), outputs.begin(), outputs.end());
  states_.insert(states_.end(), state_after.begin(), state_after.end());
  if (!select_ids_.empty()) {
    const std::size_t first_bit = 2 * rows_ * select_ids_.size();
    const std::size_t end_bit = first_bit + 2 * select_ids_.size();
    branches_.resize((end_bit + kBitsPerWord - 1) / kBitsPerWord, 0);
    for (std::size_t k = 0; k < select_ids_.size(); ++k) {
      const auto id = static_cast<std::size_t>(select_ids_[k]);
      const std::int8_t b = id < node_trace.branch.size() ? node_trace.branch[id] : kNotEvaluated;
      const std::uint64_t code = b == kNotEvaluated ? 0u : b == kYes ? 3u : 1u;
      const std::size_t bit = first_bit + 2 * k;
      branches_[bit / kBitsPerWord] |= code << (bit % kBitsPerWord);
    }
  }
  ++rows_;
}

void StepTrace::reserve(std::size_t rows) {
  inputs_.reserve(inputs_.size() + rows * input_ids_.size());
  outputs_.reserve(outputs_.size() + rows * output_ids_.size());
  states_.reserve(states_.size() + rows * state_ids_.size());
  branches_.reserve((2 * (rows_ + rows) * select_ids_.size() + kBitsPerWord - 1) / kBitsPerWord);
}

std::size_t StepTrace::memory_bytes() const {
  return (inputs_.capacity() + outputs_.capacity() + states_.capacity()) * sizeof(double) +
         branches_.capacity() * sizeof(std::uint64_t);
}

Result<CaseTrace> evaluate_row(const Runtime& runtime, const StepTrace& trace, std::size_t row) {
  if (row >= trace.size())
    return make_error("step index " + std::to_string(row) + " is outside the trace (" + std::to_string(trace.size()) +
                      " steps)");
  const Program& p = runtime.program();
  NamedValues inputs;
  for (std::size_t i = 0; i < trace.input_ids().size(); ++i)
    inputs.emplace(p.nodes[static_cast<std::size_t>(trace.input_ids()[i])].name, trace.inputs(row)[i]);
  CaseTrace values;
  auto r = runtime.step(inputs, trace.state_before(row), &values);
  if (!r) return r.error();
  return values;
}

Result<std::optional<double>> node_value(const Runtime& runtime, const StepTrace& trace, std::size_t row,
                                         NodeId node) {
  if (Status s = check_node(runtime, node); !s) return s.error();
  if (row >= trace.size())
    return make_error("step index " + std::to_string(row) + " is outside the trace (" + std::to_string(trace.size()) +
                      " steps)");
  NodeReader reader(runtime, trace, node);
  return reader.at(row);
}

Result<std::optional<std::size_t>> next_change(const Runtime& runtime, const StepTrace& trace, NodeId node,
                                               std::size_t after) {
  if (Status s = check_node(runtime, node); !s) return s.error();
  if (trace.size() < 2 || after + 1 >= trace.size()) return std::optional<std::size_t>();
  NodeReader reader(runtime, trace, node);
  auto prev = reader.at(after);
  if (!prev) return prev.error();
  for (std::size_t row = after + 1; row < trace.size(); ++row) {
    auto cur = reader.at(row);
    if (!cur) return cur.error();
    if (!same(*prev, *cur)) return std::optional<std::size_t>(row);
    prev = std::move(cur);
  }
  return std::optional<std::size_t>();
}

Result<std::optional<std::size_t>> previous_change(const Runtime& runtime, const StepTrace& trace, NodeId node,
                                                   std::size_t before) {
  if (Status s = check_node(runtime, node); !s) return s.error();
  if (before > trace.size()) before = trace.size();
  if (before < 2) return std::optional<std::size_t>();
  NodeReader reader(runtime, trace, node);
  auto next = reader.at(before - 1);
  if (!next) return next.error();
  for (std::size_t row = before - 1; row >= 1; --row) {
    auto prev = reader.at(row - 1);
    if (!prev) return prev.error();
    if (!same(*prev, *next)) return std::optional<std::size_t>(row);
    next = std::move(prev);
  }
  return std::optional<std::size_t>();
}

Result<TraceRecording> record_trace(const Runtime& runtime, std::span<const NamedValues> events) {
  auto copy = runtime.clone();
  if (!copy) return copy.error();
  TraceRecording out;
  ReplayResult r = copy->replay(events, &out.trace);
  out.failure = std::move(r.failure);
  if (out.failure && copy->steps() < copy->max_steps()) {
    // Evaluation is deterministic: running the failed event again (purely)
    // reproduces its partial values.
    auto again = copy->step(events[out.failure->index], copy->state(), &out.failure_values);
    (void)again;
  }
  return out;
}

}  // namespace tc
