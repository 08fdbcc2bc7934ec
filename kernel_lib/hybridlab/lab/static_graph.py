"""The graph drawn for static outputs (nbconvert HTML, an untrusted notebook, GitHub): an SVG made
by Graphviz from the graph JSON, looking like the live view: top-down, one dashed box per Block
scope, op boxes coloured by family, edges labelled with the shape they carry, parameters beside
their layer. A big graph is folded as the live view opens it: Block scopes below the deepest
level that keeps at most ``BUDGET`` boxes become one box each ("stage1, 31 nodes"), and the
drawing is scaled to at most ``MAX_INCHES`` (Graphviz ``size``), so a ResNet-50 is a readable
overview, not a 20 000 px strip. Model strings reach DOT only as quoted labels (graphviz escapes them).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.lab.graph_json import graph_json
    >>> from hybridlab.lab.static_graph import graph_dot, alt_text
    >>> y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1')
    >>> g = graph_json(y, shapes={'data': (2, 3)})
    >>> dot = graph_dot(g)
    >>> 'rankdir=TB' in dot.source, 'fc1' in dot.source
    (True, True)
    >>> alt_text(g, 'mlp')
    'mlp: graph of 4 nodes (1 input, 2 parameters, 1 op), 0 Block scopes, drawn top-down'
"""
import collections

import graphviz

__all__ = ["graph_dot", "graph_svg", "alt_text", "counts_text", "BUDGET", "MAX_INCHES"]

BUDGET = 80
FOLD_ABOVE = 150
MAX_INCHES = "16,40"

# the live view's op-family colours (style/base.css), light theme
FAMILY_FILL = {"elemwise": "#ffe08a", "broadcast": "#ffd166", "reduce": "#b5e48c", "shape": "#fdb462",
               "index": "#f4a261", "linalg": "#fb8072", "nn": "#fb8072", "conv": "#f28482", "pool": "#80b1d3",
               "norm": "#bebada", "rnn": "#e5989b", "random": "#ccebc5", "creation": "#d9d9d9",
               "loss": "#b3de69", "internal": "#fccde5"}


def _plural(k, word):
    return f"{k} {word}{'' if k == 1 else 's'}"


def _placement(graph):
    """The scope each node is drawn in: its own; a parameter's first consumer's (as the live view)."""
    nodes = graph["nodes"]
    place = [list(n.get("scope") or []) for n in nodes]
    consumer = {}
    for n in nodes:
        for src, _ in n.get("inputs", []):
            consumer.setdefault(src, n["id"])
    for i, n in enumerate(nodes):
        if n["op"] == "null" and (n.get("is_param") or n.get("is_aux")) and i in consumer:
            place[i] = list(place[consumer[i]])
    return place


def _boxes_at(place, depth):
    """How many boxes the drawing has with scopes deeper than ``depth`` folded."""
    return len({tuple(p[:depth + 1]) if len(p) > depth else (i,) for i, p in enumerate(place)})


def _fold_depth(graph, place):
    """Scopes deeper than this are folded (None: draw every node)."""
    if len(graph["nodes"]) <= FOLD_ABOVE:
        return None
    deepest = max((len(p) for p in place), default=0)
    best = 1
    for d in range(2, deepest):
        if _boxes_at(place, d) > BUDGET:
            break
        best = d
    return best


def counts_text(graph):
    """``graph of 4 nodes (1 input, 2 parameters, 1 op)``: what a graph holds, in words."""
    nodes = graph["nodes"]
    n_in = sum(1 for n in nodes if n.get("is_input"))
    n_param = sum(1 for n in nodes if n.get("is_param") or n.get("is_aux"))
    n_op = sum(1 for n in nodes if n["op"] != "null")
    return (f"graph of {_plural(len(nodes), 'node')} ({_plural(n_in, 'input')}, "
            f"{_plural(n_param, 'parameter')}, {_plural(n_op, 'op')})")


def alt_text(graph, title="graph"):
    """What the static drawing shows, in words (the ``<img>``'s alt text)."""
    scopes = {tuple(n["scope"][:k]) for n in graph["nodes"] for k in range(1, len(n.get("scope") or []) + 1)}
    return f"{title}: {counts_text(graph)}, {_plural(len(scopes), 'Block scope')}, drawn top-down"


def _shape(out):
    shape = out.get("shape") if out else None
    return "×".join("?" if d == 0 else str(d) for d in shape) if shape else ""


def graph_dot(graph):
    """The ``graphviz.Digraph`` of a graph JSON dict (see the module docstring)."""
    nodes = graph["nodes"]
    place = _placement(graph)
    fold = _fold_depth(graph, place)
    dot = graphviz.Digraph("hybridlab")
    dot.attr(rankdir="TB", nodesep="0.25", ranksep="0.35", size=MAX_INCHES, fontname="sans-serif", fontsize="11")
    dot.attr("node", shape="box", style="rounded,filled", fontname="sans-serif", fontsize="10", fillcolor="#e0e0e0",
             color="#616161")
    dot.attr("edge", fontname="sans-serif", fontsize="9", color="#757575", arrowsize="0.6")
    box_of, folded = {}, {}          # node index -> DOT id; folded scope path -> its box's id
    for i, p in enumerate(place):
        if fold is not None and len(p) > fold:
            box_of[i] = folded.setdefault(tuple(p[:fold + 1]), f"g_{len(folded)}")
        else:
            box_of[i] = f"n{i}"
    clusters = {}

    def cluster_of(path):
        """The subgraph holding scope ``path`` (its enclosing scopes get theirs too); the top level for ``()``."""
        if not path:
            return dot
        if path not in clusters:
            cluster_of(path[:-1])
            clusters[path] = graphviz.Digraph(f"cluster_{len(clusters)}")
            clusters[path].attr(label=path[-1], style="dashed,rounded", color="#9e9e9e", fontcolor="#616161")
        return clusters[path]

    counts = collections.Counter(box_of.values())
    drawn = set()
    for i, n in enumerate(nodes):
        key = box_of[i]
        if key in drawn:
            continue
        drawn.add(key)
        if key.startswith("g_"):
            path = tuple(place[i][:fold + 1])
            cluster_of(path[:-1]).node(key, f"▸ {path[-1]}\n{_plural(counts[key], 'node')}", shape="box3d",
                                       fillcolor="#bdbdbd", tooltip="/".join(path))
        elif n["op"] == "null":
            cluster_of(tuple(place[i])).node(key, n["name"], shape="ellipse", fillcolor="#f5f5f5", tooltip=n["name"])
        else:
            cluster_of(tuple(place[i])).node(key, f"{n['op']}\n{n['name']}", tooltip=n["name"],
                                             fillcolor=FAMILY_FILL.get(n.get("family"), "#e0e0e0"))
    for path in sorted(clusters, key=len, reverse=True):        # innermost first: nest into parents
        parent = cluster_of(path[:-1])
        parent.subgraph(clusters[path])
    seen = set()
    for i, n in enumerate(nodes):
        for src, out in n.get("inputs", []):
            a, b = box_of[src], box_of[i]
            outs = nodes[src].get("outputs") or []
            label = _shape(outs[out] if out < len(outs) else None)
            if a == b or (a, b, label) in seen:
                continue
            seen.add((a, b, label))
            dot.edge(a, b, label=label)
    return dot


def graph_svg(graph):
    """The static drawing of a graph JSON dict as SVG text; None when Graphviz's ``dot`` fails
    or is missing (its stderr is captured: no warning reaches the notebook)."""
    if not graph or not graph.get("nodes"):
        return None
    try:
        return graph_dot(graph).pipe(format="svg", quiet=True).decode("utf-8")
    except Exception:  # noqa: BLE001 -- a fallback: the live view and the graph MIME type still render
        return None
