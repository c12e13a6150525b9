#include "vulkan/runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "codegen/emit_plan.h"
#include "emit/spirv.h"
#include "emit/wgsl_emitter.h"
#include "vulkan/vk_context.h"

namespace tc::vk {

namespace {

constexpr std::uint32_t kBindings = 6;  // params, inputs, outputs, errors, values, aux
constexpr std::size_t kMaxGroups = 65535;

struct HostBuffer {
  Buffer buffer;
  Memory memory;
  void* mapped = nullptr;
  std::size_t bytes = 0;
};

Diagnostic vk_error(const std::string& what, VkResult r) {
  return make_error("vulkan: " + what + " failed (" + vk_result_name(r) + ")");
}

}  // namespace

struct Runner::Impl {
  std::unique_ptr<Context> ctx;
  codegen::Plan plan;
  RunnerOptions options;
  RunnerStats stats;
  bool staged = false;
  std::vector<ShaderModule> modules;
  std::vector<Pipeline> pipelines;
  DescriptorSetLayout set_layout;
  PipelineLayout layout;
  DescriptorPool pool;
  VkDescriptorSet set = VK_NULL_HANDLE;
  Fence fence;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  HostBuffer bufs[kBindings];
  std::size_t capacity = 0;  // cases the buffers hold

  ~Impl() {
    // Buffers and memory must go before the device: members are destroyed in
    // reverse order, and ctx (declared first) outlives everything else.
    if (cmd && ctx) vkFreeCommandBuffers(ctx->device(), ctx->command_pool(), 1, &cmd);
  }

  Result<HostBuffer> make_buffer(std::size_t bytes) {
    HostBuffer hb;
    bytes = std::max<std::size_t>(bytes, 16);
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = bytes;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer b;
    if (VkResult r = vkCreateBuffer(ctx->device(), &bci, nullptr, &b); r != VK_SUCCESS)
      return vk_error("creating a " + std::to_string(bytes) + "-byte buffer", r);
    hb.buffer = Buffer(ctx->device(), b);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device(), b, &req);
    const int type = ctx->memory_type(req.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type < 0) return make_error("vulkan: the device has no host-visible coherent memory");
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = static_cast<std::uint32_t>(type);
    VkDeviceMemory m;
    if (VkResult r = vkAllocateMemory(ctx->device(), &mai, nullptr, &m); r != VK_SUCCESS)
      return vk_error("allocating " + std::to_string(req.size) + " bytes", r);
    hb.memory = Memory(ctx->device(), m);
    if (VkResult r = vkBindBufferMemory(ctx->device(), b, m, 0); r != VK_SUCCESS) return vk_error("binding memory", r);
    if (VkResult r = vkMapMemory(ctx->device(), m, 0, VK_WHOLE_SIZE, 0, &hb.mapped); r != VK_SUCCESS)
      return vk_error("mapping memory", r);
    hb.bytes = bytes;
    return hb;
  }

  /// Cases per block: the dispatch limit, and for staged circuits the scratch budget.
  std::size_t block_limit() const {
    std::size_t b = std::min(options.max_block_cases, kMaxGroups * emit::kWorkgroupSize);
    if (staged) {
      const std::size_t per_case = 8 * plan.program.nodes.size();
      b = std::min(b, std::max<std::size_t>(emit::kWorkgroupSize, options.staged_scratch_bytes / per_case));
    }
    return std::max<std::size_t>(b, 1);
  }

  Status ensure_capacity(std::size_t cases) {
    if (cases <= capacity) return ok_status();
    const std::size_t n_in = plan.inputs.size(), n_out = plan.output_nodes.size();
    const std::size_t n_nodes = plan.program.nodes.size();
    const std::size_t sizes[kBindings] = {16, 4 * n_in * cases, 4 * n_out * cases, 4 * cases,
                                          staged ? 4 * n_nodes * cases : 16, staged ? 4 * n_nodes * cases : 16};
    for (std::uint32_t k = 0; k < kBindings; ++k) {
      bufs[k] = HostBuffer{};
      auto b = make_buffer(sizes[k]);
      if (!b.ok()) return b.error();
      bufs[k] = std::move(*b);
    }
    VkDescriptorBufferInfo infos[kBindings];
    VkWriteDescriptorSet writes[kBindings];
    for (std::uint32_t k = 0; k < kBindings; ++k) {
      infos[k] = {bufs[k].buffer.get(), 0, VK_WHOLE_SIZE};
      writes[k] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[k].dstSet = set;
      writes[k].dstBinding = k;
      writes[k].descriptorCount = 1;
      writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[k].pBufferInfo = &infos[k];
    }
    vkUpdateDescriptorSets(ctx->device(), kBindings, writes, 0, nullptr);
    capacity = cases;
    return ok_status();
  }

  Status build(const std::vector<std::string>& shaders) {
    VkDevice dev = ctx->device();
    VkDescriptorSetLayoutBinding lb[kBindings];
    for (std::uint32_t k = 0; k < kBindings; ++k)
      lb[k] = {k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dl.bindingCount = kBindings;
    dl.pBindings = lb;
    VkDescriptorSetLayout dsl;
    if (VkResult r = vkCreateDescriptorSetLayout(dev, &dl, nullptr, &dsl); r != VK_SUCCESS)
      return vk_error("creating the descriptor set layout", r);
    set_layout = DescriptorSetLayout(dev, dsl);
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &dsl;
    VkPipelineLayout plh;
    if (VkResult r = vkCreatePipelineLayout(dev, &pl, nullptr, &plh); r != VK_SUCCESS)
      return vk_error("creating the pipeline layout", r);
    layout = PipelineLayout(dev, plh);
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBindings};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = 1;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &ps;
    VkDescriptorPool dph;
    if (VkResult r = vkCreateDescriptorPool(dev, &dp, nullptr, &dph); r != VK_SUCCESS)
      return vk_error("creating the descriptor pool", r);
    pool = DescriptorPool(dev, dph);
    VkDescriptorSetAllocateInfo da{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    da.descriptorPool = dph;
    da.descriptorSetCount = 1;
    da.pSetLayouts = &dsl;
    if (VkResult r = vkAllocateDescriptorSets(dev, &da, &set); r != VK_SUCCESS)
      return vk_error("allocating the descriptor set", r);

    for (const std::string& wgsl : shaders) {
      auto words = emit::wgsl_to_spirv(wgsl, "<generated wgsl>");
      if (!words.ok()) return words.error();
      VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      sm.codeSize = words->size() * sizeof(std::uint32_t);
      sm.pCode = words->data();
      VkShaderModule smh;
      if (VkResult r = vkCreateShaderModule(dev, &sm, nullptr, &smh); r != VK_SUCCESS)
        return vk_error("creating a shader module", r);
      modules.emplace_back(dev, smh);
      VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      cp.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      cp.stage.module = smh;
      cp.stage.pName = "main";
      cp.layout = plh;
      VkPipeline p;
      if (VkResult r = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cp, nullptr, &p); r != VK_SUCCESS)
        return vk_error("creating a compute pipeline", r);
      pipelines.emplace_back(dev, p);
    }
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f;
    if (VkResult r = vkCreateFence(dev, &fi, nullptr, &f); r != VK_SUCCESS) return vk_error("creating a fence", r);
    fence = Fence(dev, f);
    VkCommandBufferAllocateInfo ca{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ca.commandPool = ctx->command_pool();
    ca.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ca.commandBufferCount = 1;
    if (VkResult r = vkAllocateCommandBuffers(dev, &ca, &cmd); r != VK_SUCCESS)
      return vk_error("allocating a command buffer", r);
    return ok_status();
  }

  /// Runs `cases` cases already written to the input buffer.
  Status dispatch(std::size_t cases) {
    static_cast<std::uint32_t*>(bufs[0].mapped)[0] = static_cast<std::uint32_t>(cases);
    VkDevice dev = ctx->device();
    vkResetCommandBuffer(cmd, 0);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (VkResult r = vkBeginCommandBuffer(cmd, &bi); r != VK_SUCCESS) return vk_error("recording commands", r);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout.get(), 0, 1, &set, 0, nullptr);
    const auto groups = static_cast<std::uint32_t>((cases + emit::kWorkgroupSize - 1) / emit::kWorkgroupSize);
    for (std::size_t s = 0; s < pipelines.size(); ++s) {
      if (s > 0) {
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb,
                             0, nullptr, 0, nullptr);
      }
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[s].get());
      vkCmdDispatch(cmd, groups, 1, 1);
    }
    VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, nullptr,
                         0, nullptr);
    if (VkResult r = vkEndCommandBuffer(cmd); r != VK_SUCCESS) return vk_error("recording commands", r);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    VkFence f = fence.get();
    vkResetFences(dev, 1, &f);
    if (VkResult r = vkQueueSubmit(ctx->queue(), 1, &si, f); r != VK_SUCCESS) return vk_error("submitting work", r);
    if (VkResult r = vkWaitForFences(dev, 1, &f, VK_TRUE, UINT64_MAX); r != VK_SUCCESS)
      return vk_error("waiting for the device", r);
    return ok_status();
  }
};

Runner::Runner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;
Runner::~Runner() = default;

const RunnerStats& Runner::stats() const { return impl_->stats; }

Result<Runner> Runner::create(const Program& program, RunnerOptions options) {
  auto plan = codegen::make_plan(program, "vulkan");
  if (!plan.ok()) return plan.error();
  auto ctx = Context::create();
  if (!ctx.ok()) return ctx.error();
  auto impl = std::make_unique<Impl>();
  impl->ctx = std::move(*ctx);
  impl->plan = std::move(*plan);
  impl->options = options;
  impl->stats.device = impl->ctx->description();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> shaders;
  impl->staged = codegen::plan_cost(impl->plan) > options.max_whole_nodes;
  if (impl->staged) {
    for (auto& st : emit::emit_wgsl_stages(impl->plan, options.stage_nodes)) shaders.push_back(std::move(st.code));
  } else {
    shaders.push_back(emit::emit_wgsl(impl->plan));
  }
  if (Status s = impl->build(shaders); !s.ok()) return s.error();
  impl->stats.pipeline_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  impl->stats.stages = impl->pipelines.size();
  return Runner(std::move(impl));
}

Status Runner::run_batch(std::span<const std::span<const double>> columns, std::size_t count, BatchResult& out) {
  Impl& m = *impl_;
  const Program& p = m.plan.program;
  const std::size_t n_in = m.plan.inputs.size(), n_out = m.plan.output_nodes.size();
  if (columns.size() != n_in)
    return make_error("expected " + std::to_string(n_in) + " input columns, got " + std::to_string(columns.size()));
  for (const auto& col : columns)
    if (col.size() < count) return make_error("an input column holds fewer values than the case count");
  out = BatchResult{};
  out.count = count;
  out.outputs.assign(n_out, std::vector<double>(count, 0.0));
  out.failed.assign(count, 0);
  const std::size_t block = m.block_limit();
  if (Status s = m.ensure_capacity(std::min(count, block)); !s.ok()) return s;
  std::vector<std::uint8_t> host_failed;
  std::vector<Diagnostic> host_error;
  m.stats.blocks = 0;
  for (std::size_t start = 0; start < count; start += block) {
    const std::size_t nb = std::min(block, count - start);
    ++m.stats.blocks;
    auto* in = static_cast<float*>(m.bufs[1].mapped);
    host_failed.assign(nb, 0);
    host_error.assign(nb, Diagnostic{});
    for (std::size_t k = 0; k < n_in; ++k) {
      const Node& node = p.nodes[static_cast<std::size_t>(m.plan.inputs[k])];
      for (std::size_t c = 0; c < nb; ++c) {
        const double raw = columns[k][start + c];
        float f = static_cast<float>(raw);
        if (auto why = node.domain->check(raw)) {
          if (!host_failed[c]) {
            host_failed[c] = 1;
            host_error[c] = make_error("input '" + node.name + "': " + *why, node.location, node.id);
          }
          f = 0.0f;
        }
        in[k * nb + c] = f;
      }
    }
    if (Status s = m.dispatch(nb); !s.ok()) return s;
    const auto* o = static_cast<const float*>(m.bufs[2].mapped);
    const auto* e = static_cast<const std::uint32_t*>(m.bufs[3].mapped);
    for (std::size_t k = 0; k < n_out; ++k)
      for (std::size_t c = 0; c < nb; ++c) out.outputs[k][start + c] = static_cast<double>(o[k * nb + c]);
    for (std::size_t c = 0; c < nb; ++c) {
      if (host_failed[c]) {
        out.failed[start + c] = 1;
        out.errors.emplace_back(start + c, std::move(host_error[c]));
      } else if (e[c] != 0) {
        out.failed[start + c] = 1;
        out.errors.emplace_back(start + c, codegen::error_diagnostic(p, e[c]));
      }
    }
  }
  return ok_status();
}

Result<std::string> probe_device() {
  auto ctx = Context::create();
  if (!ctx.ok()) return ctx.error();
  return (*ctx)->description();
}

}  // namespace tc::vk
