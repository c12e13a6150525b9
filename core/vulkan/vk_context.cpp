#include "vulkan/vk_context.h"

#include <cstdlib>
#include <vector>

namespace tc::vk {

std::string vk_result_name(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

namespace {

int rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

}  // namespace

Context::~Context() {
  pool_.reset();
  if (device_) vkDestroyDevice(device_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::string Context::description() const {
  return std::string(props_.deviceName) + " (" + type_name(props_.deviceType) + ")";
}

int Context::memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const {
  for (std::uint32_t i = 0; i < mem_.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (mem_.memoryTypes[i].propertyFlags & flags) == flags) return static_cast<int>(i);
  return -1;
}

Result<std::unique_ptr<Context>> Context::create() {
  std::unique_ptr<Context> ctx(new Context());
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tensorcode";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (VkResult r = vkCreateInstance(&ici, nullptr, &ctx->instance_); r != VK_SUCCESS)
    return make_error("no vulkan device: creating a vulkan instance failed (" + vk_result_name(r) +
                      "); install a vulkan driver, e.g. mesa-vulkan-drivers for lavapipe");
  std::uint32_t count = 0;
  vkEnumeratePhysicalDevices(ctx->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count) vkEnumeratePhysicalDevices(ctx->instance_, &count, devices.data());
  if (devices.empty()) return make_error("no vulkan device: the vulkan loader found no physical device");

  const char* want = std::getenv("TC_VULKAN_DEVICE");
  int best_rank = 99;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.apiVersion < VK_API_VERSION_1_1) continue;
    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, qs.data());
    int family = -1;
    for (std::uint32_t i = 0; i < qn && family < 0; ++i)
      if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = static_cast<int>(i);
    if (family < 0) continue;
    int r = rank(p.deviceType);
    if (want && *want) r = std::string(p.deviceName).find(want) != std::string::npos ? -1 : 98;
    if (r < best_rank) {
      best_rank = r;
      ctx->physical_ = d;
      ctx->props_ = p;
      ctx->queue_family_ = static_cast<std::uint32_t>(family);
    }
  }
  if (!ctx->physical_) return make_error("no vulkan device: no vulkan 1.1 device with a compute queue");
  if (want && *want && best_rank != -1)
    return make_error(std::string("no vulkan device: TC_VULKAN_DEVICE='") + want + "' matches no device name");
  vkGetPhysicalDeviceMemoryProperties(ctx->physical_, &ctx->mem_);

  const float prio = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = ctx->queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  if (VkResult r = vkCreateDevice(ctx->physical_, &dci, nullptr, &ctx->device_); r != VK_SUCCESS)
    return make_error("creating the vulkan device '" + ctx->description() + "' failed (" + vk_result_name(r) + ")");
  vkGetDeviceQueue(ctx->device_, ctx->queue_family_, 0, &ctx->queue_);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = ctx->queue_family_;
  VkCommandPool pool;
  if (VkResult r = vkCreateCommandPool(ctx->device_, &pci, nullptr, &pool); r != VK_SUCCESS)
    return make_error("creating a vulkan command pool failed (" + vk_result_name(r) + ")");
  ctx->pool_ = CommandPool(ctx->device_, pool);
  return ctx;
}

}  // namespace tc::vk
