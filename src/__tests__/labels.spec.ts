// Compact box labels for big models (labels.ts).
import { opSummary, shortName } from '../graph/labels';
import { IGraphNode } from '../tokens';

const node = (op: string, name: string, attrs: { [k: string]: string } = {}, scope: string[] = []): IGraphNode =>
  ({ id: 0, name, op, family: 'nn', attrs, inputs: [], outputs: [], scope } as unknown as IGraphNode);

describe('opSummary', () => {
  it('says what a layer does with its key attributes', () => {
    expect(opSummary(node('Convolution', 'c', { kernel: '(3, 3)', stride: '(2, 2)', num_filter: '64' }))).toBe('Conv 3×3 /2 ×64');
    expect(opSummary(node('Convolution', 'c', { kernel: '(1, 1)', stride: '(1, 1)', num_filter: '256', num_group: '32' }))).toBe('Conv 1×1 ×256 g32');
    expect(opSummary(node('FullyConnected', 'f', { num_hidden: '1000' }))).toBe('Dense 1000');
    expect(opSummary(node('Pooling', 'p', { pool_type: 'max', kernel: '(3, 3)', stride: '(2, 2)' }))).toBe('MaxPool 3×3 /2');
    expect(opSummary(node('Pooling', 'p', { pool_type: 'avg', global_pool: 'True' }))).toBe('GlobalAvgPool');
    expect(opSummary(node('Activation', 'a', { act_type: 'relu' }))).toBe('relu');
    expect(opSummary(node('elemwise_add', 'e'))).toBe('elemwise_add');
    expect(opSummary(node('Custom', 'proposal0', { op_type: 'proposal', feat_stride: '16' }))).toBe('Custom proposal');
    expect(opSummary(node('Convolution', 'c', { kernel: '<img src=x>' }))).toBe('Conv'); // not numbers: left out
  });
});

describe('shortName', () => {
  it("names a node from its innermost Block on, without '_fwd'", () => {
    expect(shortName(node('Convolution', 'resnetv20_stage1_conv0_fwd', {}, ['resnetv20', 'features', 'stage1', 'bottleneckv2_0', 'conv0']))).toBe('conv0');
    expect(shortName(node('Activation', 'modern0_conv0_relu_fwd', {}, ['modern0', 'conv0', 'relu']))).toBe('relu');
    expect(shortName(node('null', 'resnetv20_stage1_conv0_weight'))).toBe('conv0_weight');
    expect(shortName(node('null', 'data'))).toBe('data');
    expect(shortName(node('dot', 'resnetv20_dense0_fwd_backward_dot1', {}, ['resnetv20', 'dense0']))).toBe('dense0 ∇ dot1');
    expect(shortName(node('null', 'resnetv20_stage4_batchnorm8_fwd_output1', {}, ['resnetv20', 'features', 'stage4', 'bottleneckv2_2', 'batchnorm8']))).toBe('batchnorm8 output1');
    expect(shortName(node('elemwise_add', 'elemwise_add0', {}, ['resnetv20', 'features']))).toBe('elemwise_add0');
  });
});

describe('details rows', () => {
  it("put MXNet's variable annotations in words", () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { attrRow } = require('../graph/details');
    expect(attrRow('__shape__', '(64, 0, 7, 7)')).toEqual(['declared shape', '64×?×7×7']);
    expect(attrRow('__dtype__', '0')).toEqual(['declared dtype', 'float32']);
    expect(attrRow('__lr_mult__', '2.0')).toEqual(['declared lr mult', '2.0']);
    expect(attrRow('kernel', '(3, 3)')).toEqual(['attr kernel', '(3, 3)']);
  });

  it("name a parameter's scope as drawn: its consumer's Block, not the top level", () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { renderDetails } = require('../graph/details');
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { mlpGraph } = require('./fixtures');
    const g = mlpGraph();
    const weight = g.nodes.find((n: IGraphNode) => n.is_param)!;
    const panel = document.createElement('div');
    renderDetails(panel, weight, g);
    const scope = Array.from(panel.querySelectorAll('tr')).find(r => r.firstChild!.textContent === 'scope')!;
    expect(scope.lastChild!.textContent).toBe('mlp / dense0');
  });
});
