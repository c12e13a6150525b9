// Op-by-op evaluation in both dtypes and all three semantics, driven by
// tests/data/eval/ops_table.jsonl. Its expected values were computed by
// CPython (make_ops_table.py beside it), independently of the evaluator.
// Every line runs through the scalar entry point and through run_batch.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

using nlohmann::json;
using testing::same_bits;

struct Built {
  Program program;
  Env env;
  std::vector<double> args;
};

Built build_case(const json& c) {
  const Semantics sem = *semantics_from(c["semantics"].get<std::string>());
  const Dtype dtype = *dtype_from(c["dtype"].get<std::string>());
  Builder b(sem, Surrogate::Sigmoid, c.value("temperature", 1.0), dtype);
  Built out;
  std::vector<Arg> xs;
  for (std::size_t k = 0; k < c["args"].size(); ++k) {
    const std::string name = "a" + std::to_string(k);
    xs.push_back(b.input(name, Domain::float64()));
    out.env.inputs[name] = c["args"][k].get<double>();
    out.args.push_back(c["args"][k].get<double>());
  }
  const std::string op = c["op"];
  Value r;
  std::optional<double> bias;
  if (c.contains("bias") && !c["bias"].is_null()) bias = c["bias"].get<double>();
  if (op == "select") {
    r = b.select(xs[0], xs[1], xs[2]);
  } else if (op == "gather") {
    r = b.gather(std::vector<Arg>(xs.begin() + 1, xs.end()), xs[0]);
  } else if (op == "gather_one_hot") {
    const auto n = static_cast<std::ptrdiff_t>(xs.size() / 2);
    r = b.gather_one_hot(std::vector<Arg>(xs.begin(), xs.begin() + n), std::vector<Arg>(xs.begin() + n, xs.end()));
  } else if (op == "affine") {
    r = b.affine(xs, c["coefficients"].get<std::vector<double>>(), bias);
  } else if (op == "sparse_affine") {
    r = b.sparse_affine(xs, c["indices"].get<std::vector<std::int32_t>>(), c["coefficients"].get<std::vector<double>>(),
                        bias);
  } else if (op == "raise") {
    r = b.raise(c["name"].get<std::string>());
  } else {
    r = b.op(op, xs);
  }
  out.program = testing::built(b, r);
  return out;
}

std::vector<json> load_table() {
  std::ifstream in(std::string(TC_TEST_DATA) + "/eval/ops_table.jsonl");
  std::vector<json> rows;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(json::parse(line));
  return rows;
}

TEST(EvalOpsTable, EveryRowMatchesCPythonInScalarAndBatchedRuns) {
  const std::vector<json> rows = load_table();
  ASSERT_GE(rows.size(), 300u);
  std::size_t errors = 0;
  for (const json& row : rows) {
    SCOPED_TRACE(row.dump());
    Built c = build_case(row);
    Evaluator ev = testing::evaluator(c.program);
    const NodeId node = c.program.outputs[0].second;
    const std::string prefix = describe_node(c.program, node) + ": ";
    auto r = ev.run(c.env);
    std::vector<std::span<const double>> cols;
    for (const double& v : c.args) cols.emplace_back(&v, 1);
    BatchResult br;
    ASSERT_TRUE(ev.run_batch(cols, 1, Env{}, br).ok());
    if (row.contains("error")) {
      ++errors;
      ASSERT_FALSE(r.ok()) << "value " << r->outputs[0];
      const std::string want = row["error"];
      EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
      if (want.find("float32 range") == std::string::npos) {
        EXPECT_EQ(r.error().message.rfind(prefix, 0), 0u) << r.error().message;
        EXPECT_EQ(r.error().node, std::optional<NodeId>(node));
      }
      ASSERT_EQ(br.failed.at(0), 1);
      ASSERT_EQ(br.errors.size(), 1u);
      EXPECT_EQ(br.errors[0].second.message, r.error().message);
    } else {
      ASSERT_TRUE(r.ok()) << r.error().message;
      const double want = row["expect"];
      EXPECT_TRUE(same_bits(r->outputs[0], want)) << r->outputs[0] << " != " << want;
      ASSERT_EQ(br.failed.at(0), 0);
      EXPECT_TRUE(same_bits(br.outputs[0][0], want)) << br.outputs[0][0] << " != " << want;
    }
  }
  EXPECT_GE(errors, 40u);
}

// The table walks itself: a row of ops.def (a computing op other than a
// host call) with no line in ops_table.jsonl is named here, so a new op
// cannot arrive without CPython's values for it.
TEST(EvalOpsTable, EveryComputingOpOfTheTableHasRows) {
  std::set<std::string> listed;
  for (const json& row : load_table()) listed.insert(row["op"].get<std::string>());
  for (int k = 0; k < kOpCount; ++k) {
    const OpInfo& info = op_info(static_cast<Op>(k));
    if (info.kind == OpKind::Leaf || info.kind == OpKind::Host) continue;
    EXPECT_TRUE(listed.count(std::string(info.name)))
        << info.name << " has no line in tests/data/eval/ops_table.jsonl: add cases to make_ops_table.py";
  }
}

}  // namespace
}  // namespace tc
