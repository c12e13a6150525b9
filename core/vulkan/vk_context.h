#pragma once
/// The Vulkan device the compute runner uses, with RAII ownership of every
/// handle (no exceptions: creation returns Result).
///
/// Device choice: a discrete GPU, else an integrated GPU, else a virtual GPU,
/// else a CPU implementation (Mesa's lavapipe); the first of the best kind in
/// enumeration order. TC_VULKAN_DEVICE=<substring> picks the first device whose
/// name contains it instead. No surface or display is needed.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "base/result.h"

namespace tc::vk {

/// Owns one handle of a device-level object; destroys it with `destroy`.
template <class T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(VkDevice d, T h) : d_(d), h_(h) {}
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  DeviceHandle(DeviceHandle&& o) noexcept : d_(o.d_), h_(std::exchange(o.h_, VK_NULL_HANDLE)) {}
  DeviceHandle& operator=(DeviceHandle&& o) noexcept {
    if (this != &o) {
      reset();
      d_ = o.d_;
      h_ = std::exchange(o.h_, VK_NULL_HANDLE);
    }
    return *this;
  }
  ~DeviceHandle() { reset(); }
  void reset() {
    if (h_ != VK_NULL_HANDLE) Destroy(d_, h_, nullptr);
    h_ = VK_NULL_HANDLE;
  }
  [[nodiscard]] T get() const { return h_; }

 private:
  VkDevice d_ = VK_NULL_HANDLE;
  T h_ = VK_NULL_HANDLE;
};

using Buffer = DeviceHandle<VkBuffer, vkDestroyBuffer>;
using Memory = DeviceHandle<VkDeviceMemory, vkFreeMemory>;
using ShaderModule = DeviceHandle<VkShaderModule, vkDestroyShaderModule>;
using Pipeline = DeviceHandle<VkPipeline, vkDestroyPipeline>;
using PipelineLayout = DeviceHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using DescriptorSetLayout = DeviceHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using DescriptorPool = DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool>;
using CommandPool = DeviceHandle<VkCommandPool, vkDestroyCommandPool>;
using Fence = DeviceHandle<VkFence, vkDestroyFence>;

/// Instance, chosen physical device, logical device, one compute queue and a
/// command pool. Not copyable or movable (handles refer to it).
class Context {
 public:
  /// Creates the context; fails with a clear message when there is no
  /// Vulkan loader, no device, or no compute queue.
  static Result<std::unique_ptr<Context>> create();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  [[nodiscard]] VkDevice device() const { return device_; }
  [[nodiscard]] VkQueue queue() const { return queue_; }
  [[nodiscard]] VkCommandPool command_pool() const { return pool_.get(); }
  [[nodiscard]] const VkPhysicalDeviceProperties& properties() const { return props_; }
  /// "llvmpipe (LLVM 15.0.6, 256 bits) (cpu)"
  [[nodiscard]] std::string description() const;
  /// A memory type index with all of `flags` among `type_bits`, or -1.
  [[nodiscard]] int memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const;

 private:
  Context() = default;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0;
  VkPhysicalDeviceProperties props_{};
  VkPhysicalDeviceMemoryProperties mem_{};
  CommandPool pool_;
};

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" style name of a result code.
std::string vk_result_name(VkResult r);

}  // namespace tc::vk
