#pragma once
/// The shortest decimal text of a double that reads back to the same value,
/// spelled like std::to_chars(first, last, double): fixed or scientific,
/// whichever is shorter (fixed on a tie); "nan", "inf" and "-inf" otherwise.
/// Used in error messages, which must read the same on every platform.
#include <string>

namespace tc {

std::string shortest_number(double v);

/// The portable route of shortest_number (printf digits and a round-trip
/// search), which builds use where the C++ library lacks floating-point
/// std::to_chars (libc++ before 17, e.g. Emscripten 3.1). Exposed for tests.
std::string shortest_number_portable(double v);

}  // namespace tc
