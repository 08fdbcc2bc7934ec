import { dotString, toDot } from '../graph/dot';
import { collapsedAtDepth, defaultCollapsed, familyOf, foldKeysAround, formatShape, placement, scopeKey, seriesOf, visibleGraph } from '../graph/model';
import { rangeLabel } from '../graph/series';
import { IGraphJSON, IGraphNode } from '../tokens';
import { chainGraph, convGraph, HOSTILE, HOSTILE_BLOCK, hostileGraph, mlpGraph } from './fixtures';

describe('visible graph', () => {
  it('draws every node when nothing is collapsed, parameters in their consumer scope', () => {
    const g = mlpGraph();
    const vis = visibleGraph(g);
    expect(vis.nodes.filter(n => n.kind === 'node')).toHaveLength(g.nodes.length);
    const place = placement(g);
    expect(place[1]).toEqual(['mlp', 'dense0']);
    expect(place[0]).toEqual([]); // inputs stay at the top level
    expect(vis.root.children.map(c => c.path)).toEqual([['mlp']]);
    expect(vis.root.children[0].children.map(c => c.path)).toEqual([['mlp', 'dense0'], ['mlp', 'dense1'], ['mlp', 'dense2']]);
    expect(vis.root.children[0].children[0].children.map(c => c.path)).toEqual([['mlp', 'dense0', 'relu']]);
  });

  it('places BatchNorm running statistics (auxiliary states) with their layer', () => {
    const g = convGraph();
    const aux = g.nodes.filter(n => n.is_aux);
    expect(aux.map(n => n.name)).toEqual(['convnet_batchnorm0_running_mean', 'convnet_batchnorm0_running_var']);
    const place = placement(g);
    for (const n of aux) {
      expect(place[n.id]).toEqual(['convnet', 'batchnorm0']);
    }
    expect(visibleGraph(g).nodes.filter(n => n.kind === 'node')).toHaveLength(g.nodes.length);
  });

  it('labels edges with the shape they carry', () => {
    const vis = visibleGraph(mlpGraph());
    expect(vis.edges).toContainEqual({ from: 'n0', to: 'n3', label: '1×512' });
    expect(vis.edges).toContainEqual({ from: 'n3', to: 'n4', label: '1×256' });
    expect(visibleGraph(convGraph()).edges).toContainEqual({ from: 'n10', to: 'n11', label: '1×4×8×8' });
    expect(formatShape(null)).toBe('?');
    expect(formatShape([0, 3])).toBe('?×3');
    expect(formatShape([])).toBe('scalar');
  });

  it('folds a collapsed scope into one group box with its parameters', () => {
    const g = mlpGraph();
    const vis = visibleGraph(g, new Set([scopeKey(['mlp', 'dense0'])]));
    const groups = vis.nodes.filter(n => n.kind === 'group');
    expect(groups).toHaveLength(1);
    expect(groups[0].count).toBe(4); // weight, bias, FullyConnected, relu
    expect(vis.nodes.filter(n => n.kind === 'node')).toHaveLength(g.nodes.length - 4);
    expect(vis.edges.some(e => e.from === groups[0].key && e.to === 'n7')).toBe(true);
    expect(vis.edges.some(e => e.from === e.to)).toBe(false);
  });

  it('collapses inner scopes by default only for large graphs', () => {
    expect(defaultCollapsed(mlpGraph()).size).toBe(0);
    const big = chainGraph(1000, 20);
    const collapsed = defaultCollapsed(big);
    // the 20 Blocks are identical and chained: collapsed, and folded into one series box
    expect(collapsed.size).toBe(21);
    const vis = visibleGraph(big, collapsed);
    expect(vis.nodes.length).toBe(2); // the input + the series
    expect(vis.nodes[1].series!.members).toHaveLength(20);
    expect(vis.nodes[1].count).toBe(1000);
    const open = new Set(collapsed);
    open.delete(vis.nodes[1].series!.key);
    const opened = visibleGraph(big, open);
    expect(opened.nodes.length).toBe(21); // the input + 20 groups, inside the series' cluster
    expect(opened.root.children[0].children.map(c => c.label)).toEqual(['20× block[0–19]']);
    expect(opened.root.children[0].children[0].nodes).toHaveLength(20);
  });

  it('finds runs of identical Blocks, not Blocks that differ', () => {
    // a stage as ResNet's: unit0 has a downsample op more; unit1..3 are identical and chained;
    // then a unit whose op differs, then two units whose weights' shapes differ
    const node = (id: number, name: string, op: string, scope: string[], inputs: [number, number][], shape = [1, 8]): IGraphNode => ({
      id, name, op, family: op === 'null' ? 'variable' : 'conv', attrs: op === 'Convolution' ? { kernel: '(3, 3)' } : {},
      inputs, outputs: [{ name: `${name}_output`, shape, dtype: 'float32' }], scope, source: null,
      is_param: op === 'null' && id > 0, is_aux: false, is_input: id === 0
    });
    const nodes: IGraphNode[] = [node(0, 'data', 'null', [], [])];
    const unit = (k: number, input: number, extra = false, op = 'Convolution', wshape = [8, 8, 3, 3]): number => {
      const s = ['net', 'stage', `unit${k}`];
      const w = nodes.length;
      nodes.push(node(w, `unit${k}_weight`, 'null', [], [], wshape));
      nodes.push(node(w + 1, `unit${k}_conv`, op, s, [[input, 0], [w, 0]]));
      nodes.push(node(w + 2, `unit${k}_relu`, 'relu', s, [[w + 1, 0]]));
      if (extra) {
        nodes.push(node(w + 3, `unit${k}_down`, 'Convolution', s, [[input, 0], [w, 0]]));
      }
      return nodes.length - 1;
    };
    let x = unit(0, 0, true);
    for (let k = 1; k <= 3; k++) {
      x = unit(k, x);
    }
    x = unit(4, x, false, 'Deconvolution');
    x = unit(5, x, false, 'Convolution', [8, 8, 1, 1]);
    unit(6, x);
    const g: IGraphJSON = { version: 1, nodes, heads: [[nodes.length - 1, 0]], passes: [], source_code: null };
    const { series, byMember } = seriesOf(g);
    expect(series).toHaveLength(1);
    expect(series[0].members.map(p => p[2])).toEqual(['unit1', 'unit2', 'unit3']);
    expect(series[0].label).toBe('unit[1–3]');
    expect(rangeLabel('layer2', 'layer10')).toBe('layer[2–10]');
    expect(rangeLabel('enc_a', 'enc_b')).toBe('enc_a … enc_b');
    expect(series[0].count).toBe(9); // each unit's weight, conv and relu
    expect(byMember.has(scopeKey(['net', 'stage', 'unit0']))).toBe(false);
    // the stage collapsed to its units: unit1..3 are one box; a node inside is revealed by
    // opening the series and its unit
    const collapsed = collapsedAtDepth(g, 1); // net is a wrapper of stage: the units are level 2
    expect(collapsed.has(series[0].key)).toBe(true);
    expect(visibleGraph(g, collapsed).nodes.filter(v => v.kind === 'group')).toHaveLength(5);
    const around = foldKeysAround(g, nodes.findIndex(n => n.name === 'unit2_relu'));
    expect(around).toContain(series[0].key);
    expect(around).toContain(scopeKey(['net', 'stage', 'unit2']));
  });

  it('maps unknown families to "other" so they are CSS-safe', () => {
    const g = mlpGraph();
    expect(familyOf(g.nodes[3])).toBe('nn');
    expect(familyOf({ ...g.nodes[3], family: 'x" onload="y' })).toBe('other');
    expect(familyOf(g.nodes[0])).toBe('variable');
  });
});

describe('DOT', () => {
  it('escapes quotes and backslashes and keeps model names out of node ids', () => {
    expect(dotString('a"b\\N')).toBe('"a\\"b\\\\N"');
    const g = hostileGraph();
    const dot = toDot(visibleGraph(g));
    for (const n of g.nodes.filter(n => n.name.includes(HOSTILE))) {
      expect(dot).not.toContain(n.name);
    }
    // the block's name reaches DOT only as a cluster label, quoted, its newline a space
    expect(dotString(HOSTILE_BLOCK)).toBe(`"${HOSTILE} net"`);
    expect(dot).toContain(`subgraph cluster_0 {\n    label=${dotString(HOSTILE_BLOCK)};`);
    expect(dot).toContain('label="dense0"');
    expect(dot).toContain('n0 -> n3 [label="1×4"]');
  });
});
