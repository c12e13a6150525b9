#!/usr/bin/env python3
"""Writes a layered artifact of WIDTH * (DEPTH + 1) nodes (default 100,000)
for measuring the IDE's large-circuit path:

  python3 tests/views/data/make_large_artifact.py /tmp/large.json
  QT_QPA_PLATFORM=offscreen build/bin/tensorcode-ide --timing --screenshot /tmp/large.png /tmp/large.json
"""
import json
import sys

def main() -> None:
    out = sys.argv[1]
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 999
    nodes = []
    def node(op, args, **extra):
        n = {"id": len(nodes), "op": op, "args": args, "shape": [], "domain": None,
             "differentiable": False, "location": None}
        n.update(extra)
        nodes.append(n)
        return n["id"]
    prev = [node("input", [], name=f"x{i}", domain={"type": "float64", "min": -1, "max": 1}) for i in range(width)]
    ops = ["add", "sub", "relu", "neg"]
    for layer in range(depth):
        cur = []
        for i in range(width):
            op = ops[(i + layer) % 4]
            a = prev[(i * 37 + layer) % width]
            b = prev[(i * 11 + 5) % width]
            cur.append(node(op, [a, b] if op in ("add", "sub") else [a]))
        prev = cur
    art = {"format": "tensorcode.program", "version": 1, "semantics": "exact", "dtype": "float64",
           "surrogate": "sigmoid", "temperature": 1.0, "nodes": nodes,
           "outputs": {"result": prev[0]}, "updates": {}}
    with open(out, "w") as f:
        json.dump(art, f)

if __name__ == "__main__":
    main()
