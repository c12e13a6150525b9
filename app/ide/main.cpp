// tensorcode-ide: everything lives in the views library so tests can drive it.
#include "views/ide_app.h"

int main(int argc, char** argv) { return tc::views::run_ide(argc, argv); }
