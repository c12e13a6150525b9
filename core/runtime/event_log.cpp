// The events-file loop shared by the CLI, the IDE and the bindings (see event_log.h).
#include "runtime/event_log.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tc {

bool is_blank_event_line(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

Result<std::optional<LoggedStep>> dispatch_event_line(Runtime& rt, std::string_view line, std::size_t line_no,
                                                      CaseTrace* trace) {
  if (is_blank_event_line(line)) return std::optional<LoggedStep>{};
  auto event = rt.parse_event(line);
  if (!event) return event.error();
  auto result = rt.dispatch(*event, trace);
  if (!result) return result.error();
  LoggedStep step;
  step.line = line_no;
  step.inputs = std::move(*event);
  step.result = std::move(*result);
  if (trace) step.values = std::move(trace->values);
  return std::optional<LoggedStep>(std::move(step));
}

EventLogReplay replay_event_text(Runtime& rt, std::string_view text, std::string_view file_name,
                                 const EventLogOptions& options) {
  EventLogReplay out;
  const std::size_t nodes = rt.program().nodes.size();
  std::size_t kept = 0;
  std::size_t skip = options.skip_events;
  std::size_t line_no = 0;
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    ++line_no;
    const bool last = end == text.size();
    begin = end + 1;
    if (last && line.empty() && line_no > 1) break;  // the newline ending the last line starts no line
    if (options.progress) {
      if (options.progress->cancelled()) {
        out.error = with_code(make_error("cancelled"), DiagCode::Cancelled);
        return out;
      }
      if (line_no % 256 == 0) options.progress->update(end, text.size(), "events");
    }
    if (is_blank_event_line(line)) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    CaseTrace trace;
    const bool traced = options.trace_budget > 0 && kept + nodes <= options.trace_budget;
    auto step = dispatch_event_line(rt, line, line_no, traced ? &trace : nullptr);
    if (!step) {
      Diagnostic d = step.error();
      d.file = std::string(file_name);
      d.loc = SourceLoc{static_cast<int>(line_no), 1};
      out.error = std::move(d);
      return out;
    }
    kept += (*step)->values.size();
    out.steps.push_back(std::move(**step));
  }
  return out;
}

std::optional<std::size_t> seek_change(std::size_t from, std::size_t first, std::size_t last, SeekDirection direction,
                                       const std::function<double(std::size_t)>& value) {
  auto changed = [&](std::size_t s) {
    const double a = value(s - 1), b = value(s);
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
    return a != b;
  };
  if (direction == SeekDirection::Forward) {
    for (std::size_t s = std::max(from, first) + 1; s <= last; ++s)
      if (changed(s)) return s;
  } else {
    for (std::size_t s = std::min(from, last + 1); s-- > first + 1;)
      if (changed(s)) return s;
  }
  return std::nullopt;
}

}  // namespace tc
