// The package's modules import each other without a circle (type-only
// imports included: a circle of types still ties the modules' layouts
// together and made program.ts and webgpu.ts one unit, issue 36).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Module name -> the package modules it imports or re-exports from. */
function importGraph() {
  const graph = new Map();
  for (const file of fs.readdirSync(src).filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    const deps = new Set();
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"]\.\/([\w.-]+)\.js['"]/g)) deps.add(`${m[1]}.ts`);
    graph.set(file, deps);
  }
  return graph;
}

/** One circle as a list of modules, or null. */
function findCircle(graph) {
  const state = new Map();
  const stack = [];
  const visit = (m) => {
    state.set(m, 'open');
    stack.push(m);
    for (const d of graph.get(m) ?? []) {
      if (state.get(d) === 'open') return [...stack.slice(stack.indexOf(d)), d];
      if (!state.has(d)) {
        const c = visit(d);
        if (c) return c;
      }
    }
    stack.pop();
    state.set(m, 'done');
    return null;
  };
  for (const m of graph.keys()) {
    if (state.has(m)) continue;
    const c = visit(m);
    if (c) return c;
  }
  return null;
}

test('the import graph of src/ has no circle', () => {
  const graph = importGraph();
  assert.ok(graph.size > 5, `read ${graph.size} modules`);
  assert.ok(graph.get('program.ts').has('webgpu.ts'), 'the reader sees program.ts import webgpu.ts');
  const circle = findCircle(graph);
  assert.equal(circle, null, `circle: ${circle?.join(' -> ')}`);
});

test('the circle finder finds a planted circle', () => {
  const graph = importGraph();
  graph.get('webgpu.ts').add('program.ts');
  assert.deepEqual(findCircle(graph)?.slice(-1), [findCircle(graph)[0]]);
});
