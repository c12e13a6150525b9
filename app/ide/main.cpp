// tensorcode-ide: everything lives in the views library so tests can drive it.
#include "base/heap_policy.h"
#include "views/ide_app.h"

int main(int argc, char** argv) {
  tc::keep_freed_memory();  // every edit recompiles: keep the memory for the next compile
  return tc::views::run_ide(argc, argv);
}
