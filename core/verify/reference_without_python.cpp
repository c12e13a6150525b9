// Builds without TC_ENABLE_PYTHON have no CPython reference: the factory
// reports that instead of failing to link (python_reference.cpp is excluded).
#include "verify/python_reference.h"

#ifndef TC_HAVE_PYTHON
namespace tc {

namespace {
const char* kNoPython =
    "this tensorcode was built without the python reference (TC_ENABLE_PYTHON=OFF): "
    "rebuild with TC_ENABLE_PYTHON=ON to verify against python";
}

const char* python_driver_source() { return ""; }

bool python_reference_available(std::string* why) {
  if (why) *why = kNoPython;
  return false;
}

Result<std::unique_ptr<Reference>> make_python_reference(const PythonReferenceOptions&) {
  return make_error(kNoPython);
}

}  // namespace tc
#endif
