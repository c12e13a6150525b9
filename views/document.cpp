#include "views/document.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace tc {
namespace views {

void Document::openSource(const QString& path, const QString& text) {
  path_ = path;
  read_only_ = false;
  source_ = text;
  function_.clear();
  functions_.clear();
  diagnostics_.clear();
  inputs_.clear();
  layers_.clear();
  compiled_source_.clear();
  compile_ms_ = 0;
  compile_failed_ = false;
}

void Document::openArtifact(const QString& path) {
  path_ = path;
  read_only_ = true;
  source_.clear();
  function_.clear();
  functions_.clear();
  diagnostics_.clear();
  inputs_.clear();
  compile_ms_ = 0;
  compile_failed_ = false;
}

std::string Document::fileName() const {
  return path_.isEmpty() ? std::string("untitled.py") : QFileInfo(path_).fileName().toStdString();
}

bool Document::setSource(const QString& text) {
  if (read_only_ || text == source_) return false;
  source_ = text;
  return true;
}

bool Document::setFunction(const QString& name) {
  if (name == function_) return false;
  function_ = name;
  return true;
}

std::optional<QString> Document::rewriteDomain(const std::string& name, const Domain& domain) {
  if (read_only_) return std::nullopt;
  std::vector<InputSpec> specs = inputs_;
  for (auto& s : specs) {
    if (s.name == name) {
      s.domain = domain;
      s.from_directive = true;
    }
  }
  const QString text = QString::fromStdString(write_directives(source_.toStdString(), specs));
  if (text == source_) return std::nullopt;
  source_ = text;
  return text;
}

CompileDirectives Document::compileDirectives() const {
  auto d = parse_compile_directives(source_.toStdString());
  return d.ok() ? *d : CompileDirectives{};
}

std::optional<QString> Document::rewriteCompileDirectives(const CompileDirectives& d) {
  if (read_only_) return std::nullopt;
  const QString text = QString::fromStdString(set_compile_directives(source_.toStdString(), d));
  if (text == source_) return std::nullopt;
  source_ = text;
  return text;
}

void Document::setProgram(std::shared_ptr<const Program> program, std::vector<int> layers) {
  program_ = std::move(program);
  program_session_ = program_ ? std::make_shared<ProgramSession>(program_) : nullptr;
  layers_ = std::move(layers);
  if (program_ && layers_.size() != program_->nodes.size()) layers_ = schedule_layers(*program_);
  if (!program_) layers_.clear();
}

bool Document::applyCompile(const CompileResult& result, const QString& requested, std::vector<int> layers) {
  ++compile_count_;
  diagnostics_ = result.diagnostics;
  compile_ms_ = result.milliseconds;
  compiled_source_ = requested;
  compile_failed_ = !result.program;
  if (!result.program) {
    // A transient error: the last good program, its inputs and domains stay.
    if (functions_.empty()) functions_ = result.functions;
    return false;
  }
  functions_ = result.functions;
  function_ = QString::fromStdString(result.function);
  inputs_ = result.inputs;
  setProgram(result.program, std::move(layers));
  return true;
}

void Document::applyLoad(std::shared_ptr<const Program> program, std::vector<int> layers, double ms,
                         const std::optional<Diagnostic>& error) {
  ++compile_count_;
  compile_ms_ = ms;
  if (error) {
    diagnostics_ = {*error};
    return;
  }
  setProgram(std::move(program), std::move(layers));
}

QString Document::outOfDateReason() const {
  if (upToDate()) return {};
  if (!program_ && !compile_failed_) return QCoreApplication::translate("tc::views::Session", "nothing is compiled yet");
  if (compile_failed_) {
    for (const auto& d : diagnostics_)
      if (d.severity == Severity::Error)
        return QCoreApplication::translate("tc::views::Session", "the source does not compile (%1); the circuit shown is the last one that compiled")
            .arg(QString::fromStdString(d.format()));
    return QCoreApplication::translate("tc::views::Session", "the source does not compile; the circuit shown is the last one that compiled");
  }
  return QCoreApplication::translate("tc::views::Session", "the source changed since the last compile; compile it first (Ctrl+B)");
}

std::vector<NodeId> Document::nodesOnLine(int line) const {
  std::vector<NodeId> ids;
  if (!program_) return ids;
  for (const auto& n : program_->nodes) {
    if (n.location && n.location->line == line) ids.push_back(n.id);
  }
  return ids;
}

}  // namespace views
}  // namespace tc
