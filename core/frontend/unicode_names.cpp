#include "frontend/unicode_names.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace tc::py {

namespace {

struct CodeRange {
  char32_t lo, hi;
};
struct Decomposition {
  char32_t cp;
  std::uint32_t start, length;
};
struct CombiningClass {
  char32_t cp;
  std::uint8_t ccc;
};
struct Composition {
  char32_t first, second, composite;
};

#include "frontend/unicode_tables.inc"

template <std::size_t N>
bool in_ranges(const CodeRange (&table)[N], char32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                             [](char32_t c, const CodeRange& r) { return c < r.lo; });
  return it != std::begin(table) && cp <= std::prev(it)->hi;
}

int combining_class(char32_t cp) {
  auto it = std::lower_bound(std::begin(kCombiningClass), std::end(kCombiningClass), cp,
                             [](const CombiningClass& c, char32_t v) { return c.cp < v; });
  return it != std::end(kCombiningClass) && it->cp == cp ? it->ccc : 0;
}

// Hangul syllables decompose and compose by arithmetic (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

void decompose(char32_t cp, std::u32string& out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const char32_t s = cp - kSBase;
    out += kLBase + s / kNCount;
    out += kVBase + (s % kNCount) / kTCount;
    if (s % kTCount) out += kTBase + s % kTCount;
    return;
  }
  auto it = std::lower_bound(std::begin(kDecomposition), std::end(kDecomposition), cp,
                             [](const Decomposition& d, char32_t v) { return d.cp < v; });
  if (it != std::end(kDecomposition) && it->cp == cp)
    out.append(kDecompositionPool + it->start, it->length);  // already fully decomposed
  else
    out += cp;
}

/// The primary composite of (a, b), or 0.
char32_t compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  auto it = std::lower_bound(std::begin(kComposition), std::end(kComposition), std::pair{a, b},
                             [](const Composition& c, const std::pair<char32_t, char32_t>& v) {
                               return c.first < v.first || (c.first == v.first && c.second < v.second);
                             });
  return it != std::end(kComposition) && it->first == a && it->second == b ? it->composite : 0;
}

}  // namespace

bool is_xid_start(char32_t cp) { return in_ranges(kXidStart, cp); }
bool is_xid_continue(char32_t cp) { return in_ranges(kXidContinue, cp); }
bool is_printable(char32_t cp) { return in_ranges(kPrintable, cp); }

std::u32string nfkc(std::u32string_view text) {
  // 1. Full compatibility decomposition.
  std::u32string d;
  for (char32_t cp : text) decompose(cp, d);
  // 2. Canonical ordering: marks between starters sorted by class, stably.
  for (std::size_t i = 0; i < d.size();) {
    if (combining_class(d[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < d.size() && combining_class(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + static_cast<std::ptrdiff_t>(i), d.begin() + static_cast<std::ptrdiff_t>(j),
                     [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }
  // 3. Canonical composition.
  std::u32string out;
  std::size_t starter = std::u32string::npos;
  int last_class = -1;
  for (char32_t cp : d) {
    const int cc = combining_class(cp);
    if (starter != std::u32string::npos) {
      // Not blocked: nothing between the starter and cp, or everything
      // between has a lower, non-zero class.
      const bool adjacent = out.size() == starter + 1;
      if (adjacent || (last_class != 0 && last_class < cc)) {
        if (char32_t c = compose(out[starter], cp)) {
          out[starter] = c;
          continue;
        }
      }
    }
    if (cc == 0) {
      starter = out.size();
      last_class = 0;
    } else {
      last_class = cc;
    }
    out += cp;
  }
  return out;
}

}  // namespace tc::py
