#pragma once
/// Export by target name over a session (the CLI's `emit`, the IDE's Export
/// menu, the Python package's to_onnx): the one table of targets in
/// emit/targets.h. Apart from workbench.h because Qt code, where `emit` is
/// a keyword macro, includes that one and not this.
#include <string_view>

#include "base/result.h"
#include "emit/targets.h"
#include "session/program_session.h"

namespace tc::workbench {

/// The session's program written for a target of emit::targets() by name.
Result<emit::Emitted> emit(const ProgramSession& session, std::string_view target,
                           const emit::TargetOptions& options = {});

}  // namespace tc::workbench
