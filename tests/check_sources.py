#!/usr/bin/env python3
"""Every source file is listed by name in its folder's CMakeLists.txt (the
build names its sources explicitly, so a file nobody listed would silently
not be compiled, or a test never run). Usage: check_sources.py SOURCE_DIR."""
import os
import re
import sys

# folder -> (CMakeLists.txt that lists it, suffixes that must appear)
RULES = [
    ("core", "core/CMakeLists.txt", (".cpp",)),
    ("app/cli", "app/cli/CMakeLists.txt", (".cpp",)),
    ("views", "views/CMakeLists.txt", (".cpp", ".h")),
    ("tests", "tests/CMakeLists.txt", ("_test.cpp", "_util.cpp")),
    ("tests/views", "tests/views/CMakeLists.txt", ("_test.cpp",)),
    ("bench", "bench/CMakeLists.txt", ("_bench.cpp",)),
    ("fuzz", "fuzz/CMakeLists.txt", ("_fuzz.cpp",)),
]


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    missing = []
    for folder, cmake, suffixes in RULES:
        root = os.path.join(src, folder)
        cm = os.path.join(src, cmake)
        if not os.path.isdir(root) or not os.path.exists(cm):
            continue
        text = open(cm).read()
        for base, dirs, files in os.walk(root):
            rel_dir = os.path.relpath(base, root)
            # nested folders with their own CMakeLists.txt are checked by their own rule
            if rel_dir != "." and os.path.exists(os.path.join(base, "CMakeLists.txt")):
                dirs[:] = []
                continue
            if folder == "tests" and rel_dir in ("data", "node", "python", "scripts") or rel_dir.startswith("data"):
                continue
            for f in sorted(files):
                if f.endswith(suffixes) and not re.search(r"(^|[\s/])" + re.escape(f) + r"(\s|\)|$)", text, re.M):
                    missing.append(os.path.join(folder, rel_dir, f).replace("/./", "/"))
    for m in missing:
        print(f"{m}: not listed in its CMakeLists.txt")
    print(f"{len(missing)} unlisted source file(s)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
