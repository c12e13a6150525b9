// tensorcode for pages and bundlers (the package's `browser` condition):
// the API of index.ts without any Node module. The engine's loader is
// imported as an ES module and its .wasm streamed from a URL.
//
//   import { load } from 'tensorcode';
//   const tc = await load();                      // the .wasm beside the package's loader
//   const tc = await load({ wasmURL: '/assets/tensorcode_core.wasm' });
import { type LoadOptions, type Tensorcode, bind } from './api.js';
import type { CoreFactory } from './core.js';
import { fromBytes, fromURL, startCore } from './core_loader.js';
// @ts-ignore: dist/tensorcode_core.mjs is Emscripten's loader as an ES module, written by scripts/build.mjs.
import createTensorcodeCore from '../tensorcode_core.mjs';

export * from './api.js';

/** Loads the engine (WebAssembly) and returns the synchronous API. */
export async function load(options: LoadOptions = {}): Promise<Tensorcode> {
  const factory = options.factory ?? (createTensorcodeCore as CoreFactory);
  let instantiate;
  if (options.wasmBinary !== undefined) instantiate = fromBytes(options.wasmBinary);
  else if (options.wasmURL !== undefined) instantiate = fromURL(typeof options.wasmURL === 'string' ? options.wasmURL : options.wasmURL.href);
  // Written out as `new URL('...', import.meta.url)` so that bundlers (webpack, Vite) see the asset and emit it.
  else instantiate = fromURL(new URL('../tensorcode_core.wasm', import.meta.url).href);
  return bind(await startCore(factory, instantiate));
}
