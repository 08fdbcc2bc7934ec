"""``mx.sym``: symbolic graphs. ``var`` makes inputs, every registered op composes nodes (MXNet 1.x
names), ``Group`` bundles outputs; graphs save to and load from MXNet 1.9's JSON.

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=4, name='fc'))
    >>> y.list_arguments()
    ['data', 'fc_weight', 'fc_bias']
    >>> mx.sym.fromjson(y.tojson()).list_outputs() == y.list_outputs()
    True
"""
import sys as _sys
import types as _types

from .. import ops as _ops  # noqa: F401
from .graph import Node, topo_order  # noqa: F401
from .namespace import contrib_function as _contrib_fn, populate as _populate
from .symbol import Group, Symbol, Variable, compose, var  # noqa: F401

_OP_NAMES = _populate(globals(), "sym")
from .json import from_json as fromjson, from_json as load_json, load  # noqa: E402,F401  (after the ops)
random = _types.SimpleNamespace()
_populate(random.__dict__, "sym.random")
from .random_api import install as _install_random  # noqa: E402
_install_random(random, _sys.modules[__name__])   # the sampling functions taking numbers or Symbols
# MXNet 1.x ``F.np`` / ``F.npx`` with F = mx.sym (mxnet.symbol.numpy): the registry's np / npx names
np = _types.ModuleType(__name__ + ".numpy", "mx.np's op functions building Symbols (1.x F.np).")
npx = _types.ModuleType(__name__ + ".numpy_extension", "mx.npx's op functions building Symbols (1.x F.npx).")
_populate(np.__dict__, "sym.np")
np._Symbol = Symbol            # MXNet's NumPy-style symbol class: one Symbol class here
_populate(npx.__dict__, "sym.npx")
from .numpy_fronts import install as _install_np_fronts  # noqa: E402
_install_np_fronts(np, globals())     # tensordot, inner, outer, vdot, linalg: front ends choosing ops
# named by their contrib name, as MXNet names them: contrib.Proposal(...) makes node "proposal0"
contrib = _types.SimpleNamespace(**{n[len("_contrib_"):]: _contrib_fn(n) for n in _OP_NAMES if n.startswith("_contrib_")})
contrib.__doc__ = "MXNet's contrib operators (``F.contrib.boolean_mask``...)."
from .contrib_zipfian import rand_zipfian as _rand_zipfian  # noqa: E402  (a Python function in MXNet)
contrib.rand_zipfian = _rand_zipfian
from .control_flow import foreach as _foreach  # noqa: E402  (unrolled: no subgraph operators here)
contrib.foreach = _foreach
linalg = _types.SimpleNamespace(**{n[len("_linalg_"):]: globals()[n] for n in _OP_NAMES if n.startswith("_linalg_")})
linalg.__doc__ = "MXNet's linalg operators (``F.linalg.gemm2``, ``F.linalg.potrf``...)."
_internal = _types.SimpleNamespace(**{n: globals()[n] for n in _OP_NAMES if n.startswith("_")})
image = _types.SimpleNamespace(**{n[len("_image_"):]: globals()[n] for n in _OP_NAMES if n.startswith("_image_")})
image.__doc__ = "MXNet's image operators (``mx.sym.image.normalize``, ``to_tensor``...)."
_ops.custom.symbol_functions["Custom"] = globals()["Custom"]    # mx.operator.PythonOp.get_symbol's nodes
# MXNet 1.x ``mx.sym.sparse``: every op (sparse storage runs on dense values here) and ``retain``
sparse = _types.ModuleType(__name__ + ".sparse", "mx.sym's op functions under MXNet's sparse namespace.")
_populate(sparse.__dict__, "sym")
sparse.retain = globals()["_sparse_retain"]
_sys.modules[sparse.__name__] = sparse


# MXNet 1.x Symbol's fluent methods (besides reshape/astype/flatten/transpose defined by hand)
_FLUENT = """reshape_like zeros_like ones_like broadcast_axes repeat pad swapaxes split slice slice_axis slice_like
take one_hot pick sort topk argsort argmax argmax_channel argmin clip abs sign shape_array size_array expand_dims
broadcast_to broadcast_like tile flip depth_to_space space_to_depth diag sum nansum prod nanprod mean max min norm
round rint fix floor ceil trunc sin cos tan arcsin arccos arctan degrees radians sinh cosh tanh arcsinh arccosh
arctanh exp expm1 log log10 log2 log1p sqrt rsqrt cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax
softmin squeeze""".split()


def _attach_fluent():
    """Fluent methods as on NDArray (``x.sum(axis=1)``, ``x.flatten()``, ``x.transpose()``...),
    each calling the ``mx.sym`` function of the same name with the symbol as first input."""
    def method(name, fn):
        def call(self, *args, **kwargs):
            return fn(self, *args, **kwargs)
        call.__name__ = name
        call.__doc__ = f"``{name}(self, ...)``: see ``mx.sym.{name}``."
        return call

    for name in _FLUENT:
        if name in globals() and name not in Symbol.__dict__:
            setattr(Symbol, name, method(name, globals()[name]))

    def flatten(self, **kwargs):
        """``Flatten``: (batch, -1)."""
        return globals()["Flatten"](self, **kwargs)

    def transpose(self, *axes, **kwargs):
        """Permute dimensions (reversed when no axes are given)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if axes:
            kwargs["axes"] = axes
        return globals()["transpose"](self, **kwargs)

    Symbol.flatten, Symbol.transpose = flatten, transpose


_attach_fluent()

from .functions import *  # noqa: E402,F401,F403  (after the ops: wrappers around them)
from . import from_tape as _from_tape  # noqa: E402,F401  (registers mx.autograd.get_symbol's builder)

