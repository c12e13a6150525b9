// apply_policy and its check (policy.h).
#include "ir/policy.h"

#include <cmath>

namespace tc {

Status check_policy(const Policy& policy) {
  if (policy.temperature && (!std::isfinite(*policy.temperature) || *policy.temperature <= 0))
    return make_error("temperature must be finite and greater than 0");
  return ok_status();
}

RootSettings resolve(const Policy& policy, const Program& program) {
  return {policy.semantics.value_or(program.semantics), policy.dtype.value_or(program.dtype),
          policy.temperature.value_or(program.temperature), policy.surrogate.value_or(program.surrogate)};
}

void apply_policy(const Policy& policy, Program& program) {
  const RootSettings root = resolve(policy, program);
  program.semantics = root.semantics;
  program.dtype = root.dtype;
  program.temperature = root.temperature;
  program.surrogate = root.surrogate;
}

Program with_policy(Program program, const Policy& policy) {
  apply_policy(policy, program);
  return program;
}

}  // namespace tc
