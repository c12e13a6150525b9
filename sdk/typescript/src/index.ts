// tensorcode for JavaScript: the engine compiled to WebAssembly. This is
// the Node entry (CommonJS, and ES modules through dist/index.mjs); pages
// and bundlers get browser.ts, the same API without Node's modules.
//
//   const tc = await load();
//   const p = tc.compile(source, { inputs: { a: 'int32:-128:127' } });
//   p.run({ a: 5 });   // {result: 10}
//
// load() is the only asynchronous step; everything after it is synchronous.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoadOptions, type Tensorcode, bind } from './api.js';
import type { CoreFactory, CoreModule } from './core.js';
import { type Instantiate, fromBytes, fromURL, startCore } from './core_loader.js';

export * from './api.js';

/** Loads the engine (WebAssembly) and returns the synchronous API. */
export async function load(options: LoadOptions = {}): Promise<Tensorcode> {
  return bind(await coreModule(options));
}

/** @internal The engine's embind module itself (tests reach below the API with it). */
export async function coreModule(options: LoadOptions = {}): Promise<CoreModule> {
  // dist/cjs/ holds this file; the loader and the .wasm sit one folder up.
  const factory = options.factory ?? (require(path.join(__dirname, '..', 'tensorcode_core.js')) as CoreFactory);
  return startCore(factory, instantiate(options));
}

function instantiate(options: LoadOptions): Instantiate {
  if (options.wasmBinary !== undefined) return fromBytes(options.wasmBinary);
  const url = options.wasmURL === undefined ? undefined : typeof options.wasmURL === 'string' ? options.wasmURL : options.wasmURL.href;
  if (url !== undefined && /^(https?|data|blob):/i.test(url)) return fromURL(url);
  const file = url === undefined ? path.join(__dirname, '..', 'tensorcode_core.wasm') : url.startsWith('file:') ? fileURLToPath(url) : url;
  return async (imports) => WebAssembly.instantiate(await fs.promises.readFile(file), imports);
}
