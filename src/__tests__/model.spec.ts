import { dotString, toDot } from '../graph/dot';
import { defaultCollapsed, familyOf, formatShape, placement, scopeKey, visibleGraph } from '../graph/model';
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
    expect(collapsed.size).toBe(20);
    const vis = visibleGraph(big, collapsed);
    expect(vis.nodes.length).toBe(21); // the input + 20 groups
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
