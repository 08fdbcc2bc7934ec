// jsdom lacks TextEncoder/TextDecoder, which Graphviz's WASM wrapper uses.
const { TextDecoder, TextEncoder } = require('util');
if (typeof globalThis.TextDecoder === 'undefined') {
  globalThis.TextDecoder = TextDecoder;
  globalThis.TextEncoder = TextEncoder;
}

// jsdom has no DragEvent; @lumino/widgets (the graph's full-tab view) subclasses it on import
if (typeof globalThis.DragEvent === 'undefined') {
  globalThis.DragEvent = class DragEvent extends MouseEvent {};
}
