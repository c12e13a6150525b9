#include "grad/surrogate.h"

#include <cmath>

#include "ir/kernels.h"
#include "ir/op_semantics.h"

namespace tc {

// The logistic's slope is sigmoid's derivative, written once with its kernel.
double sigmoid_slope(double x) { return sem::sigmoid_slope(x); }

namespace {

// The contract's relaxed forms: sigmoid steps and a Gaussian bump. The forward
// forms call the shared kernels so relaxed values match the evaluator bit for bit.
double sigmoid_greater(double x, double y, double t) { return kernels::relaxed_gt(x, y, t); }
double sigmoid_equal(double x, double y, double t) { return kernels::relaxed_eq(x, y, t); }
double gaussian_log_slope(double z) { return -2.0 * z; }

const SurrogatePolicy kSigmoid{Surrogate::Sigmoid, sigmoid_greater, sigmoid_slope, sigmoid_equal,
                               gaussian_log_slope};

}  // namespace

const SurrogatePolicy& surrogate_policy(Surrogate s) {
  switch (s) {
    case Surrogate::Sigmoid: return kSigmoid;
  }
  return kSigmoid;  // unreachable: the switch covers every surrogate
}

}  // namespace tc
