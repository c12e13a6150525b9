// Starting the engine: the Emscripten loader (tensorcode_core.js) with the
// compiled module handed to it through its instantiateWasm hook, so that
// where the .wasm comes from (a URL streamed in a page, a file read in Node,
// bytes the caller has) is decided here and not by Emscripten's loader,
// which in Node 20 would fetch() a file path and fail.
import type { CoreFactory, CoreModule } from './core.js';

/** Instantiates the engine's .wasm with the loader's imports. */
export type Instantiate = (imports: WebAssembly.Imports) => Promise<WebAssembly.WebAssemblyInstantiatedSource>;

/** Bytes of a .wasm as load() takes them. */
export type WasmBytes = ArrayBuffer | Uint8Array;

export function fromBytes(bytes: WasmBytes): Instantiate {
  return (imports) => WebAssembly.instantiate(bytes as BufferSource, imports) as Promise<WebAssembly.WebAssemblyInstantiatedSource>;
}

/** The engine's module: the factory with `instantiate` providing the compiled code. */
export async function startCore(factory: CoreFactory, instantiate: Instantiate): Promise<CoreModule> {
  let fail!: (e: unknown) => void;
  const failed = new Promise<never>((_, reject) => { fail = reject; });
  const started = factory({
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      instantiate(imports).then((r) => done(r.instance, r.module), fail);
      return {};  // the exports arrive through done()
    },
  });
  return Promise.race([started, failed]);
}

/**
 * Streams the module from a URL (WebAssembly.instantiateStreaming), and
 * compiles from the downloaded bytes where the server's content type is
 * not application/wasm (streaming requires it).
 */
export function fromURL(url: string): Instantiate {
  return async (imports) => {
    if (typeof WebAssembly.instantiateStreaming === 'function') {
      try {
        return await WebAssembly.instantiateStreaming(fetch(url, { credentials: 'same-origin' }), imports);
      } catch (e) {
        // A wrong MIME type is a TypeError; anything else (a 404, a bad module) is reported below or rethrown.
        if (!(e instanceof TypeError)) throw e;
      }
    }
    const response = await fetch(url, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`tensorcode: could not fetch the engine's WebAssembly from ${url} (HTTP ${response.status})`);
    return WebAssembly.instantiate(await response.arrayBuffer(), imports);
  };
}
