// verify_against_python: builds in every configuration (without embedded
// Python, make_python_reference reports why and so does this).
#include "verify/python_reference.h"

namespace tc {

Result<VerifyReport> verify_against_python(const Program& program, const PythonReferenceOptions& reference,
                                           const VerifyOptions& options) {
  auto ref = make_python_reference(reference);
  if (!ref) return ref.error();
  return verify(program, **ref, options);
}

}  // namespace tc
