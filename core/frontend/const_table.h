#pragma once
// The lowering's constant nodes by (value bits, line, column): one node per
// literal and value, shared by every loop iteration that computes it.
//
// Open addressing in one flat array: unrolling a long loop makes tens of
// thousands of distinct constants (one per value of the loop variable), and
// a node-based std::unordered_map then costs two dependent cache misses per
// lookup (bucket, then node) plus an allocation per constant; here a lookup
// touches one slot, usually in one cache line.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/source.h"
#include "ir/builder.h"

namespace tc::py::lowering {

class ConstTable {
 public:
  /// The node made for this value at this location, or an invalid Value.
  [[nodiscard]] Value find(std::uint64_t bits, SourceLoc loc) const {
    if (slots_.empty()) return {};
    for (std::size_t i = home(bits, loc);; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (!s.node.valid()) return {};
      if (s.bits == bits && s.line == loc.line && s.column == loc.column) return s.node;
    }
  }
  /// Records `node` for a key find() did not have.
  void insert(std::uint64_t bits, SourceLoc loc, Value node) {
    if (4 * (count_ + 1) > 3 * slots_.size()) grow();
    place(Slot{bits, loc.line, loc.column, node});
    ++count_;
  }

 private:
  struct Slot {
    std::uint64_t bits = 0;
    int line = 0;
    int column = 0;
    Value node;  // invalid: the slot is free
  };

  [[nodiscard]] std::size_t mask() const { return slots_.size() - 1; }
  // splitmix64's finaliser: every input bit reaches the low bits the mask keeps
  // (integral doubles have all-zero low mantissa bits).
  [[nodiscard]] std::size_t home(std::uint64_t bits, SourceLoc loc) const {
    const std::uint64_t where =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(loc.line)) << 32 | static_cast<std::uint32_t>(loc.column);
    std::uint64_t h = bits ^ (where * 0x9E3779B97F4A7C15ull);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return static_cast<std::size_t>(h) & mask();
  }
  void place(const Slot& s) {
    std::size_t i = home(s.bits, SourceLoc{s.line, s.column});
    while (slots_[i].node.valid()) i = (i + 1) & mask();
    slots_[i] = s;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.node.valid()) place(s);
  }

  std::vector<Slot> slots_;  // a power of two in size, at most three quarters full
  std::size_t count_ = 0;
};

}  // namespace tc::py::lowering
