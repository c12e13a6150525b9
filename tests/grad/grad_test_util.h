#pragma once
// Random Builder programs and points for the gradient tests.
#include <random>

#include "eval/evaluator.h"
#include "ir/program.h"

namespace tc::test {

/// A random program over inputs x0, x1 (float64 in [-3, 3], differentiable),
/// i (int32 in [0, 2]) and parameters p0, p1, using every computing op but
/// call (without gathers: every op but call, gather and gather_one_hot);
/// its output `result` sums the last few values.
Program random_program(std::mt19937_64& rng, Semantics semantics, Dtype dtype, int size, bool gathers = true);
/// Random values for every input of `p`.
Env random_env(std::mt19937_64& rng, const Program& p);
/// True when every evaluated decision of `p` at `env` (comparison operands,
/// relu arguments, floor division quotients) is at least `margin` from its
/// switching point, so finite differences do not straddle a jump.
bool away_from_boundaries(const Program& p, const Env& env, double margin);

}  // namespace tc::test
