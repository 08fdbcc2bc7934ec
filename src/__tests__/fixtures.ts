/** Graph JSON fixtures in the shape of docs/graph-json.md. */
import { IGraphJSON, IGraphNode } from '../tokens';

export const HOSTILE = '<img src=x onerror=alert(1)>';

function v(id: number, name: string, shape: number[], kind: 'input' | 'param'): IGraphNode {
  return {
    id, name, op: 'null', family: 'variable', attrs: {}, inputs: [],
    outputs: [{ name, shape, dtype: 'float32' }], scope: [], source: null,
    is_param: kind === 'param', is_aux: false, is_input: kind === 'input'
  };
}

function op(id: number, name: string, opName: string, family: string, inputs: [number, number][],
            shape: number[], scope: string[], attrs: { [k: string]: string } = {}): IGraphNode {
  return {
    id, name, op: opName, family, attrs, inputs,
    outputs: [{ name: `${name}_output`, shape, dtype: 'float32' }], scope,
    source: { file: '/tmp/mlp.py', line: 12, code: `x = F.${opName}(x)` },
    is_param: false, is_aux: false, is_input: false
  };
}

/** A two-layer MLP `mlp0` (dense0 -> relu -> dense1), one hostile node name and attribute. */
export function mlpGraph(): IGraphJSON {
  const nodes: IGraphNode[] = [
    v(0, 'data', [1, 4], 'input'),
    v(1, 'mlp0_dense0_weight', [8, 4], 'param'),
    v(2, 'mlp0_dense0_bias', [8], 'param'),
    op(3, 'mlp0_dense0_fwd', 'FullyConnected', 'nn', [[0, 0], [1, 0], [2, 0]], [1, 8], ['mlp0', 'dense0'], { num_hidden: '8' }),
    op(4, HOSTILE, 'Activation', 'elemwise', [[3, 0]], [1, 8], ['mlp0'], { act_type: '<b>relu</b>' }),
    v(5, 'mlp0_dense1_weight', [2, 8], 'param'),
    v(6, 'mlp0_dense1_bias', [2], 'param'),
    op(7, 'mlp0_dense1_fwd', 'FullyConnected', 'nn', [[4, 0], [5, 0], [6, 0]], [1, 2], ['mlp0', 'dense1'], { num_hidden: '2' })
  ];
  return {
    version: 1, nodes, heads: [[7, 0]],
    passes: [{ name: 'dce', graph: { version: 1, nodes, heads: [[7, 0]], passes: [], source_code: null } }],
    source_code: 'def forward(data, w0, b0, w1, b1):\n    return fc(relu(fc(data, w0, b0)), w1, b1)\n'
  };
}

/** A chain of `n` op nodes spread over `blocks` child scopes of `net0`. */
export function chainGraph(n: number, blocks: number): IGraphJSON {
  const nodes: IGraphNode[] = [v(0, 'data', [1, 16], 'input')];
  for (let i = 1; i <= n; i++) {
    const b = Math.floor(((i - 1) * blocks) / n);
    nodes.push(op(i, `op${i}`, i % 2 ? 'relu' : 'tanh', 'elemwise', [[i - 1, 0]], [1, 16], ['net0', `block${b}`]));
  }
  return { version: 1, nodes, heads: [[n, 0]], passes: [], source_code: null };
}
