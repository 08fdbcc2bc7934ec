"""The layer order of shared/design/ARCHITECTURE.md, enforced on the import graph of hybridlab
(module-level AND function-level imports, read with ``ast``: nothing is imported to check).

An import may only point down the list ``LAYERS``. ``KNOWN_UPWARD`` lists the upward imports the
tree still has (issue 13 removes them): a new upward import fails, and so does an entry here that
no longer exists (so the list only shrinks). Without those, no import circle may span more than
one package, except the ``KNOWN_CIRCLES`` (same ratchet).
"""
import ast
import collections
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib", "hybridlab")

# bottom first, as ARCHITECTURE.md lists them top first; modules it does not name are placed by what
# they are: runtime state with the layer it serves, training utilities with gluon, checkpoints with module.
# A dotted name places one module of a package apart from the rest ("deferred.state" below "deferred").
LAYERS = [
    ("base", {"base", "device", "events", "fileio", "host_pool", "name", "context", "monitor_state", "runtime", "attribute",
              "write_versions",
              "recordio", "threads", "engine"}),
    ("ops", {"ops"}),
    ("ndarray, autograd, deferred state", {"ndarray", "autograd", "deferred.state", "numpy", "numpy_extension",
                                           "random", "ufunc_helper", "operator"}),
    ("symbol, deferred.trace", {"symbol", "deferred", "contrib"}),   # deferred: mx._deferred_compute and its tracer
    ("compiler", {"compiler", "profiler", "op_monitor"}),
    ("optimizer", {"initializer", "optimizer", "lr_scheduler"}),
    # the single-process kvstore: Trainer (gluon) sums gradients and runs update_on_kvstore through it
    ("kvstore", {"kvstore"}),
    # contrib.amp converts HybridBlocks and drives the Trainer, so it sits with gluon, above the rest of contrib
    ("gluon", {"gluon", "viz", "image", "metric", "contrib.amp", "amp"}),
    ("module, io", {"module", "io", "callback", "monitor", "model", "rnn"}),
    ("lab", {"lab"}),
    ("public helpers", {"test_utils", "test_data", "util", "numpy_op_signature", "launch", "_numpy_op_doc"}),
]

# (importer, imported): upward imports still in the tree, each one a task of issue 13
KNOWN_UPWARD = set()


# packages joined by an import circle within one layer, still in the tree
KNOWN_CIRCLES = []


def module_sources(root=ROOT):
    """{module name: (source text, is a package)} of every .py file of the package."""
    out = {}
    parent = os.path.dirname(os.path.abspath(root))
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, parent)[:-3].replace(os.sep, ".")
                package = name.endswith(".__init__")
                with open(path, encoding="utf-8") as fh:
                    out[name[:-9] if package else name] = (fh.read(), package)
    return out


def import_edges(sources):
    """{(importer, imported)} between modules of ``sources``, every import statement counted
    (also inside functions); ``from . import x`` resolves to the module ``x`` when it is one."""
    edges = set()
    for name, (text, package) in sources.items():
        here = name if package else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                while t not in sources and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in sources and t != name:
                    edges.add((name, t))
    return edges


def layer_of(module):
    if module == "hybridlab":
        return len(LAYERS)          # the public surface re-exports everything
    parts = module.split(".")[1:]
    for n in range(len(parts), 0, -1):      # the most specific name wins
        for rank, (_, names) in enumerate(LAYERS):
            if ".".join(parts[:n]) in names:
                return rank
    raise AssertionError(f"{module}: not in any layer of tests/test_layers.py LAYERS (add it where it belongs)")


def upward(edges):
    return {(a, b) for a, b in edges if layer_of(a) < layer_of(b)}


def circles(edges):
    """The strongly connected components of more than one module (iterative Tarjan)."""
    graph = collections.defaultdict(list)
    for a, b in edges:
        graph[a].append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in sorted({m for e in edges for m in e}):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter[0]
                counter[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(graph[w])))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def _package(module):
    parts = module.split(".")
    return ".".join(parts[:2])


@pytest.fixture(scope="module")
def edges():
    return import_edges(module_sources())


def test_no_import_points_up_the_layers(edges):
    new = sorted(upward(edges) - KNOWN_UPWARD)
    assert not new, "imports against the layer order of ARCHITECTURE.md:\n" + "\n".join(
        f"  {a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})" for a, b in new)


def test_known_upward_imports_are_still_there(edges):
    gone = sorted(KNOWN_UPWARD - upward(edges))
    assert not gone, f"fixed: remove from KNOWN_UPWARD: {gone}"


def test_no_circle_spans_packages_once_the_known_imports_go(edges):
    spanning = [{_package(m) for m in c} for c in circles(edges - KNOWN_UPWARD)]
    spanning = [p for p in spanning if len(p) > 1]
    new = [sorted(p) for p in spanning if not any(p <= known for known in KNOWN_CIRCLES)]
    assert not new, f"import circles across packages: {new}"
    gone = [sorted(k) for k in KNOWN_CIRCLES if not any(p == k for p in spanning)]
    assert not gone, f"changed or fixed: update KNOWN_CIRCLES: {gone} (now {[sorted(p) for p in spanning]})"


def test_a_deliberate_upward_import_is_caught():
    """The check itself: an ops module importing gluon (even inside a function) is reported."""
    sources = {"hybridlab": ("", True), "hybridlab.ops": ("", True), "hybridlab.gluon": ("", True),
               "hybridlab.gluon.block": ("from ..ops import conv\n", False),
               "hybridlab.ops.conv": ("def f():\n    from ..gluon import block\n", False)}
    edges = import_edges(sources)
    assert upward(edges) == {("hybridlab.ops.conv", "hybridlab.gluon.block")}
    assert circles(edges) == [["hybridlab.gluon.block", "hybridlab.ops.conv"]]


def test_runtime_state_sits_below_its_drivers():
    """A dotted LAYERS name places one module apart from its package: the tracing flag sits with the
    tensor, the tracer with the graph IR; the monitoring switches sit below everything they watch."""
    assert layer_of("hybridlab.deferred.state") == layer_of("hybridlab.ndarray.ndarray")
    assert layer_of("hybridlab.deferred.trace") == layer_of("hybridlab.deferred") == layer_of("hybridlab.symbol")
    assert layer_of("hybridlab.monitor_state") == layer_of("hybridlab.base")
    assert upward({("hybridlab.deferred.state", "hybridlab.deferred.trace")})
