"""``mx.autograd.get_symbol``: the recorded history of an array as a Symbol (MXNet 1.9's
``autograd.get_symbol``).

The tape lives here, the graph IR one layer up: the builder that turns tape nodes into a Symbol is
``symbol/from_tape.py``, which registers itself in ``builder`` when the symbol layer loads (as the
tracer registers in ``deferred.state``). This module checks the argument and hands it over. It
imports nothing above ``base`` at load time: the symbol layer loads while the ndarray layer is still
loading (NDArray imports the tracing state, which loads the tracer and the symbol layer).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1.0, 2.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.exp(x) * 2
    >>> sym = mx.autograd.get_symbol(y)
    >>> sym.list_arguments(), sym.list_outputs()
    (['var0'], ['node_1_output'])
"""
from ..base import MXNetError

__all__ = ["get_symbol", "builder"]


class _Builder:
    """Set by ``symbol.from_tape`` when it loads: ``build(array)`` returns the Symbol of the tape
    history of ``array`` (an NDArray that is on the tape or a variable)."""

    build = None


builder = _Builder()


def get_symbol(x):
    """Retrieve the recorded computation history of ``x`` as a ``Symbol``.

    ``x`` is an NDArray computed under ``autograd.record()`` from arrays that need gradients (or such
    an array itself). Arrays with ``attach_grad()`` become variables ``var0``, ``var1``..., other arrays
    the ops read become ``null<k>``, op calls become nodes ``node_0``, ``node_1``... (MXNet's rules,
    counted per call in graph order). A hybridized block's call whose graph has at most
    ``inline_limit`` ops (``hybridize(inline_limit=2)`` by default, MXNet's rule; never with
    ``static_alloc``) appears as its graph (its node and Parameter names kept); a larger one as one
    ``_CachedOp`` node carrying its graph as a subgraph (written under the node's ``"subgraphs"`` in
    JSON). The result binds like any Symbol (``sym.eval``, ``sym.bind``, ``SymbolBlock``, export:
    ``_CachedOp`` nodes run as the ops of their graphs) and prints and saves as JSON.

    >>> import hybridlab as mx
    >>> x = mx.nd.array([0.0, 1.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * 2 + mx.nd.exp(x)
    >>> sym = mx.autograd.get_symbol(y)
    >>> sym.list_arguments()
    ['var0']
    >>> [n['op'] for n in __import__('json').loads(sym.tojson())['nodes']]
    ['null', '_mul_scalar', 'exp', 'broadcast_add']
    >>> sym.eval(var0=x)[0].asnumpy().tolist() == y.asnumpy().tolist()
    True
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(3, in_units=2), mx.gluon.nn.Dense(3, in_units=3), mx.gluon.nn.Dense(1, in_units=3))
    >>> net.initialize(); net.hybridize()     # 3 ops > the default inline_limit=2
    >>> with mx.autograd.record():
    ...     z = net(x.reshape((1, 2)))
    >>> [n['op'] for n in __import__('json').loads(mx.autograd.get_symbol(z).tojson())['nodes']][-2:]
    ['null', '_CachedOp']
    """
    from ..ndarray.ndarray import NDArray   # here: see the module docstring
    if not isinstance(x, NDArray):
        raise MXNetError(f"get_symbol: expected an NDArray computed under autograd.record(), got "
                         f"{type(x).__name__}")
    if x._node is None and x._grad_req == "null":
        raise MXNetError(f"get_symbol: expected an NDArray that is part of a computation graph, got an array of "
                         f"shape {x.shape} that was not computed under autograd.record() from arrays that need "
                         f"gradients. Did you forget to turn on recording, or to call attach_grad() on an input?")
    if builder.build is None:   # only when hybridlab.autograd is used without the package (import hybridlab)
        raise MXNetError("get_symbol: expected the symbol layer to be loaded (import hybridlab), got none")
    return builder.build(x)
