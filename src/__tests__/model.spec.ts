import { dotString, toDot } from '../graph/dot';
import { defaultCollapsed, familyOf, formatShape, placement, scopeKey, visibleGraph } from '../graph/model';
import { chainGraph, HOSTILE, mlpGraph } from './fixtures';

describe('visible graph', () => {
  it('draws every node when nothing is collapsed, parameters in their consumer scope', () => {
    const g = mlpGraph();
    const vis = visibleGraph(g);
    expect(vis.nodes.filter(n => n.kind === 'node')).toHaveLength(g.nodes.length);
    const place = placement(g);
    expect(place[1]).toEqual(['mlp0', 'dense0']);
    expect(place[0]).toEqual([]); // inputs stay at the top level
    expect(vis.root.children.map(c => c.path)).toEqual([['mlp0']]);
    expect(vis.root.children[0].children.map(c => c.path)).toEqual([['mlp0', 'dense0'], ['mlp0', 'dense1']]);
  });

  it('labels edges with the shape they carry', () => {
    const vis = visibleGraph(mlpGraph());
    expect(vis.edges).toContainEqual({ from: 'n0', to: 'n3', label: '1×4' });
    expect(vis.edges).toContainEqual({ from: 'n3', to: 'n4', label: '1×8' });
    expect(formatShape(null)).toBe('?');
    expect(formatShape([0, 3])).toBe('?×3');
    expect(formatShape([])).toBe('scalar');
  });

  it('folds a collapsed scope into one group box with its parameters', () => {
    const g = mlpGraph();
    const vis = visibleGraph(g, new Set([scopeKey(['mlp0', 'dense0'])]));
    const groups = vis.nodes.filter(n => n.kind === 'group');
    expect(groups).toHaveLength(1);
    expect(groups[0].count).toBe(3); // weight, bias, FullyConnected
    expect(vis.nodes.filter(n => n.kind === 'node')).toHaveLength(g.nodes.length - 3);
    expect(vis.edges.some(e => e.from === groups[0].key && e.to === 'n4')).toBe(true);
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
    const g = mlpGraph();
    g.nodes[4].scope = ['mlp0'];
    const dot = toDot(visibleGraph(g));
    expect(dot).not.toContain(HOSTILE);
    expect(dot).toContain('subgraph cluster_0');
    expect(dot).toContain('label="mlp0"');
    expect(dot).toContain('n0 -> n3 [label="1×4"]');
  });
});
