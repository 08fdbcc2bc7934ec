/**
 * Graph JSON fixtures. `mlpGraph`, `convGraph` and `hostileGraph` are real models' graphs as the
 * kernel writes them (`fixtures/*.json`, from tools/dump_jest_fixtures.py, which also says what the
 * models are; tests/test_jest_fixtures.py fails when they drift from the kernel's output).
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { IGraphJSON, IGraphNode } from '../tokens';

export const HOSTILE = '<img src=x onerror=alert(1)>';
/** The name (and top scope) of the hostile fixture's block: HTML and a newline. */
export const HOSTILE_BLOCK = `${HOSTILE}\nnet`;

/** A fresh copy of `fixtures/<name>.json` on every call: tests may modify what they get. */
function load(name: string): IGraphJSON {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', `${name}.json`), 'utf8')) as IGraphJSON;
}

/** The hybridize tutorial's MLP `mlp` (512 -> dense0 256 relu -> dense1 128 relu -> dense2 2) on data (1, 512). */
export function mlpGraph(): IGraphJSON {
  return load('mlp');
}

/** `convnet`: conv0 -> batchnorm0 (2 auxiliary states) -> relu0 -> pool0 -> flatten0 -> dense0 on data (1, 3, 16, 16). */
export function convGraph(): IGraphJSON {
  return load('convnet');
}

/** Two Dense layers in a block named `HOSTILE_BLOCK`: every node name and scope holds HTML and a newline. */
export function hostileGraph(): IGraphJSON {
  return load('hostile');
}

/**
 * A chain of `n` op nodes spread over `blocks` child scopes of `net0`. Synthetic: the tests of
 * large graphs (collapsed by default, 1000 nodes) need a size no checked-in model graph should
 * have, and the tests of layout races a graph of a known, tiny size.
 */
export function chainGraph(n: number, blocks: number): IGraphJSON {
  const node = (id: number, name: string, op: string, scope: string[]): IGraphNode => ({
    id, name, op, family: op === 'null' ? 'variable' : 'elemwise', attrs: {}, inputs: id ? [[id - 1, 0]] : [],
    outputs: [{ name: op === 'null' ? name : `${name}_output`, shape: [1, 16], dtype: 'float32' }], scope,
    source: null, is_param: false, is_aux: false, is_input: op === 'null'
  });
  const nodes = [node(0, 'data', 'null', [])];
  for (let i = 1; i <= n; i++) {
    nodes.push(node(i, `op${i}`, i % 2 ? 'relu' : 'tanh', ['net0', `block${Math.floor(((i - 1) * blocks) / n)}`]));
  }
  return { version: 1, nodes, heads: [[n, 0]], passes: [], source_code: null };
}
