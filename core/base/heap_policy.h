#pragma once
/// How the process's C allocator treats large freed blocks.

namespace tc {

/// Keeps memory the process frees for its next allocations instead of
/// handing it back to the kernel at once. Call it once, first thing in a
/// program's main: the CLI and the IDE do, and the compile benchmark does so
/// it measures what they run. A library never calls it, since the allocator
/// belongs to the host process (the Python package leaves Python's alone).
///
/// Why: glibc trims the top of the heap whenever more than twice the
/// largest block freed so far lies free there, and serves blocks above its
/// mapping threshold with fresh mappings. A compile that grows one node
/// array by doubling leaves just over that much free at its end, so each
/// compile handed its tens of megabytes back and faulted them in again in
/// the next one: 40% of a 100,000-node compile, and what made compile time
/// grow faster than the circuit (docs/evaluator.md). The IDE recompiles on
/// every edit; it pays this every time.
///
/// Set: blocks up to 32 MiB (glibc's ceiling) come from the heap, and the
/// heap is trimmed only above 256 MiB free. A no-op where the C library is
/// not glibc, and under a sanitizer (its allocator ignores mallopt).
/// Returns whether both settings took.
bool keep_freed_memory();

}  // namespace tc
