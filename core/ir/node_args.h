#pragma once
/// The argument list of an IR node: a vector of node ids that keeps up to four
/// ids inside the node. Almost every node has one to three arguments, so a
/// circuit needs no heap block per node, and a pass walking the nodes reads
/// each node's arguments from the cache line it already holds instead of
/// chasing a pointer per node (at 100k nodes that walk is memory-bound).
/// Reads and writes like the std::vector<NodeId> it replaces.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "base/source.h"

namespace tc {

class NodeArgs {
 public:
  using value_type = NodeId;
  using size_type = std::size_t;
  using iterator = NodeId*;
  using const_iterator = const NodeId*;
  using reference = NodeId&;
  using const_reference = const NodeId&;

  NodeArgs() = default;
  NodeArgs(std::initializer_list<NodeId> ids) { assign(ids.begin(), ids.end()); }
  NodeArgs(const std::vector<NodeId>& ids) { assign(ids.data(), ids.data() + ids.size()); }  // NOLINT: reads as a vector
  NodeArgs(const NodeArgs& o) { assign(o.begin(), o.end()); }
  NodeArgs(NodeArgs&& o) noexcept { steal(o); }
  NodeArgs& operator=(const NodeArgs& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  NodeArgs& operator=(NodeArgs&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  NodeArgs& operator=(std::initializer_list<NodeId> ids) {
    assign(ids.begin(), ids.end());
    return *this;
  }
  ~NodeArgs() { release(); }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] NodeId* data() { return on_heap() ? heap_ : inline_; }
  [[nodiscard]] const NodeId* data() const { return on_heap() ? heap_ : inline_; }
  [[nodiscard]] iterator begin() { return data(); }
  [[nodiscard]] iterator end() { return data() + size_; }
  [[nodiscard]] const_iterator begin() const { return data(); }
  [[nodiscard]] const_iterator end() const { return data() + size_; }
  [[nodiscard]] NodeId& operator[](std::size_t i) { return data()[i]; }
  [[nodiscard]] const NodeId& operator[](std::size_t i) const { return data()[i]; }
  [[nodiscard]] NodeId& front() { return data()[0]; }
  [[nodiscard]] const NodeId& front() const { return data()[0]; }
  [[nodiscard]] NodeId& back() { return data()[size_ - 1]; }
  [[nodiscard]] const NodeId& back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(std::size_t n) {
    if (n > capacity_) grow(n);
  }
  void push_back(NodeId id) {
    if (size_ == capacity_) grow(std::size_t{capacity_} * 2);
    data()[size_++] = id;
  }
  void resize(std::size_t n, NodeId fill = 0) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data()[i] = fill;
    size_ = static_cast<std::uint32_t>(n);
  }
  template <class It>
  void assign(It first, It last) {
    clear();
    reserve(static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) data()[size_++] = *first;
  }

  bool operator==(const NodeArgs& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }
  bool operator==(const std::vector<NodeId>& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }
  [[nodiscard]] std::vector<NodeId> to_vector() const { return {begin(), end()}; }

 private:
  static constexpr std::uint32_t kInline = 4;

  [[nodiscard]] bool on_heap() const { return capacity_ > kInline; }
  void grow(std::size_t n) {
    auto* bigger = new NodeId[n];
    if (size_ > 0) std::memcpy(bigger, data(), size_ * sizeof(NodeId));
    release();
    heap_ = bigger;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  void release() {
    if (on_heap()) delete[] heap_;
    capacity_ = kInline;
  }
  // Leaves `o` empty and inline. Requires this to be released (inline, no heap).
  void steal(NodeArgs& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (o.on_heap()) heap_ = o.heap_;
    else std::memcpy(inline_, o.inline_, sizeof inline_);
    o.size_ = 0;
    o.capacity_ = kInline;
  }

  union {
    NodeId inline_[kInline] = {};
    NodeId* heap_;
  };
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
};

}  // namespace tc
