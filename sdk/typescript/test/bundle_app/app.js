// Entry of the bundled app: the .wasm where the package's loader points
// (the bundler copies it: webpack and Vite read new URL(..., import.meta.url)).
import { load } from 'tensorcode';
import { main } from './main.js';

main(load, {});
