// jsdom lacks TextEncoder/TextDecoder, which Graphviz's WASM wrapper uses.
const { TextDecoder, TextEncoder } = require('util');
if (typeof globalThis.TextDecoder === 'undefined') {
  globalThis.TextDecoder = TextDecoder;
  globalThis.TextEncoder = TextEncoder;
}
