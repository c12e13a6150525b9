// Export by target name over a session (export.h).
#include "workbench/export.h"

namespace tc::workbench {

Result<emit::Emitted> emit(const ProgramSession& session, std::string_view target, const emit::TargetOptions& options) {
  return emit::emit_target(session.program(), target, options);
}

}  // namespace tc::workbench
