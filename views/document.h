#pragma once
// The document part of the session: the open file (a .py source or a
// read-only artifact), its text, the compiled program with its schedule
// layers and the compile's outcome. A failed compile keeps the last good
// program and marks the document out of date, so views grey out rather
// than go blank and exports refuse. No Qt widgets and no worker here: the
// session posts the compiles and hands their results to apply*().
#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "views/engine.h"

namespace tc {
namespace views {

class Document {
 public:
  /// A .py source opened from `path` (empty: untitled); forgets the last compile.
  void openSource(const QString& path, const QString& text);
  /// A .json artifact opened read-only from `path`; its program arrives through applyLoad().
  void openArtifact(const QString& path);

  [[nodiscard]] const QString& path() const { return path_; }
  void setPath(const QString& path) { path_ = path; }
  /// The file name compiles and diagnostics name ("untitled.py" for an untitled document).
  [[nodiscard]] std::string fileName() const;
  [[nodiscard]] bool readOnly() const { return read_only_; }
  [[nodiscard]] const QString& source() const { return source_; }
  /// The editor's text; false when nothing changed (or the document is read-only).
  bool setSource(const QString& text);
  [[nodiscard]] const QString& function() const { return function_; }
  /// Chooses the function to compile; false when it already is the one.
  bool setFunction(const QString& name);
  [[nodiscard]] const std::vector<FunctionSignature>& functions() const { return functions_; }
  [[nodiscard]] const std::vector<InputSpec>& inputs() const { return inputs_; }
  /// Rewrites the directive block for a new domain of input `name`; the new
  /// source text, or nothing when it did not change (or the document is read-only).
  /// The source's compile directives (defaults where it gives none or they are malformed).
  [[nodiscard]] CompileDirectives compileDirectives() const;
  /// Rewrites the compile directive line to `d`; the new source, or nullopt when nothing changed (or read-only).
  std::optional<QString> rewriteCompileDirectives(const CompileDirectives& d);
  std::optional<QString> rewriteDomain(const std::string& name, const Domain& domain);

  [[nodiscard]] std::shared_ptr<const Program> program() const { return program_; }
  /// The program's core session (its evaluators, kept between runs), made
  /// with the program and replaced with it. The engine thread uses it.
  [[nodiscard]] std::shared_ptr<ProgramSession> programSession() const { return program_session_; }
  [[nodiscard]] const std::vector<int>& layers() const { return layers_; }
  /// Replaces the program (a snapshot restored with nothing open); layers are recomputed when they do not fit.
  void setProgram(std::shared_ptr<const Program> program, std::vector<int> layers = {});
  [[nodiscard]] const Diagnostics& diagnostics() const { return diagnostics_; }
  [[nodiscard]] double compileMs() const { return compile_ms_; }
  [[nodiscard]] int compileCount() const { return compile_count_; }

  /// A compile of `requested` (the source text it was asked for) finished.
  /// True when its program replaced the shown one; false when it failed and
  /// the last good program stays, out of date.
  bool applyCompile(const CompileResult& result, const QString& requested, std::vector<int> layers);
  /// The artifact finished loading: its program (with `layers`), or the error.
  void applyLoad(std::shared_ptr<const Program> program, std::vector<int> layers, double ms,
                 const std::optional<Diagnostic>& error);
  /// The inputs of a loaded artifact (read from its program).
  void setInputs(std::vector<InputSpec> inputs) { inputs_ = std::move(inputs); }

  /// The last compile of the source failed: what is shown is the last good compile.
  [[nodiscard]] bool compileFailed() const { return !read_only_ && compile_failed_; }
  /// The program shown is compiled from the current source (always for artifacts).
  [[nodiscard]] bool upToDate() const {
    return read_only_ || (program_ && !compile_failed_ && compiled_source_ == source_);
  }
  /// Why upToDate() is false, for refusals ("" when up to date).
  [[nodiscard]] QString outOfDateReason() const;
  /// Source nodes on `line` (1-based), in id order.
  [[nodiscard]] std::vector<NodeId> nodesOnLine(int line) const;

 private:
  QString path_;
  QString source_;
  bool read_only_ = false;
  QString function_;
  std::vector<FunctionSignature> functions_;
  std::vector<InputSpec> inputs_;
  std::shared_ptr<const Program> program_;
  std::shared_ptr<ProgramSession> program_session_;
  std::vector<int> layers_;
  Diagnostics diagnostics_;
  double compile_ms_ = 0.0;
  bool compile_failed_ = false;
  QString compiled_source_;  // the source text of the last compile delivered
  int compile_count_ = 0;
};

}  // namespace views
}  // namespace tc
