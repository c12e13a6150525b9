#include "terminal_progress.h"

#include <unistd.h>

namespace tc {

TerminalProgress::TerminalProgress(std::string label, std::FILE* out, bool force,
                                   std::chrono::milliseconds quiet_for)
    : label_(std::move(label)), out_(out), enabled_(force || isatty(fileno(out))), quiet_for_(quiet_for),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

TerminalProgress::~TerminalProgress() { finish(); }

void TerminalProgress::update(std::uint64_t done, std::uint64_t total, std::string_view what) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < quiet_for_) return;  // quick runs stay quiet
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
  last_ = now;
  drawn_ = true;
  int percent = total ? static_cast<int>(done * 100 / total) : 100;
  std::fprintf(out_, "\r%s: %llu/%llu %.*s (%d%%)\033[K", label_.c_str(), static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total), static_cast<int>(what.size()), what.data(), percent);
  std::fflush(out_);
}

void TerminalProgress::finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace tc
