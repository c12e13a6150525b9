#include "grad/surrogate.h"

#include <cmath>

#include "ir/kernels.h"

namespace tc {

double sigmoid_slope(double x) {
  double e = std::exp(-std::fabs(x));
  double d = 1.0 + e;
  return e / (d * d);
}

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
