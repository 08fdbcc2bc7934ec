"""Op-checker case for ``_CachedOp`` (a hybridized call as one node, ``ops/cached_op.py``): called
through the dispatcher with its graph as MXNet's ``subgraph`` attribute (symbol JSON), it runs that
graph. It has no gradient of its own: graphs expand it into its ops before they are differentiated
(tests/test_cached_op_subgraph.py checks gradients through bound and hybridized ``_CachedOp`` nodes)."""
import numpy as np

import hybridlab as mx
from op_checker import Case

_x, _w = mx.sym.var("x"), mx.sym.var("w")
_SUB = mx.sym.Group([mx.sym.relu(mx.sym.FullyConnected(_x, _w, no_bias=True, num_hidden=4), name="act"),
                     mx.sym.sum(_x * 2, name="total")])


def ref(x, w, **_):
    return np.maximum(x @ w.T, 0), np.array([(x * 2).sum()])   # legacy sum: shape (1,)


CASES = [Case("_CachedOp", [(3, 5), (4, 5)], ref=ref, attrs={"subgraph": _SUB.tojson()}, grad=(),
              rtol=1e-5, atol=1e-5)]
