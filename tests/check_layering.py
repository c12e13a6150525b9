#!/usr/bin/env python3
"""Checks the component edges from the #include lines, so a wrong edge fails
ctest (layering.components) instead of waiting for a reviewer:

- core/ never includes Qt, views/ or app/; views/ never includes app/;
- each core/<folder> includes only itself and the folders its
  tc_core_module(<folder> DEPS ...) line in core/CMakeLists.txt declares,
  directly or through them;
- the include graph between core folders has no cycle (printed if found).

Usage: check_layering.py SOURCE_DIR. Prints every violation; exit 1 if any."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
MODULE = re.compile(r'tc_core_module\((\w+)([^)]*)\)')


def sources(root):
    for base, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".cpp", ".h", ".def")):
                yield os.path.join(base, f)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def declared_deps(cmake_text):
    deps = {}
    for name, rest in MODULE.findall(cmake_text):
        words = rest.split()
        listed = set()
        if "DEPS" in words:
            for w in words[words.index("DEPS") + 1:]:
                if w in ("EXCLUDE", "DEFINES"):
                    break
                if w.startswith("tc_core_"):
                    listed.add(w[len("tc_core_"):])
        deps.setdefault(name, set()).update(listed)
    return deps


def closure(deps, name):
    seen, todo = set(), list(deps.get(name, ()))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(deps.get(d, ()))
    return seen


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    core = os.path.join(src, "core")
    problems = []
    folders = sorted(d for d in os.listdir(core) if os.path.isdir(os.path.join(core, d)))
    with open(os.path.join(core, "CMakeLists.txt")) as f:
        deps = declared_deps(f.read())
    graph = {d: set() for d in folders}
    for d in folders:
        allowed = closure(deps, d) | {d}
        for path in sources(os.path.join(core, d)):
            rel = os.path.relpath(path, src)
            for inc in includes(path):
                top = inc.split("/")[0]
                if re.match(r"Q[A-Za-z]+$|qt", top) or top in ("views", "app"):
                    problems.append(f"{rel}: core includes <{inc}>")
                elif "/" in inc and top in folders:
                    graph[d].add(top) if top != d else None
                    if top not in allowed:
                        problems.append(f"{rel}: includes {inc}, but tc_core_module({d}) does not declare "
                                        f"tc_core_{top} (declared: {', '.join(sorted(allowed - {d})) or 'nothing'})")
    for path in sources(os.path.join(src, "views")):
        for inc in includes(path):
            if inc.startswith("app/"):
                problems.append(f"{os.path.relpath(path, src)}: views include {inc}")
    cycle = find_cycle(graph)
    if cycle:
        problems.append("include cycle between core folders: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    edges = sum(len(v) for v in graph.values())
    print(f"{len(folders)} core folders, {edges} include edges between them, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
