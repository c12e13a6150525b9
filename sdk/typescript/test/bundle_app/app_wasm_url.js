// Entry of the bundled app for bundlers that do not follow
// new URL(..., import.meta.url) (esbuild): the .wasm imported as a file URL
// and handed to load({ wasmURL }).
import { load } from 'tensorcode';
import wasmURL from 'tensorcode/tensorcode_core.wasm';
import { main } from './main.js';

main(load, { wasmURL });
