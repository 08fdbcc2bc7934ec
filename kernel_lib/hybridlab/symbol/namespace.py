"""Generate the ``mx.sym`` op functions from the registry (same names and aliases as ``mx.nd``).

``mx.sym.FullyConnected(data, num_hidden=8, name='fc1')`` composes a node; inputs not given become
variables ``fc1_weight``, ``fc1_bias`` as in MXNet. Arguments bind as in ``mx.nd`` (one binder,
``ops.binder``): inputs, then attributes positionally in schema order, then keywords; ``name=``
and ``attr=`` name the node and add attributes.
"""
from ..ops.binder import make_binder, signature
from ..ops.registry import NsName, all_ops, get_op
from .symbol import Symbol, compose

__all__ = ["populate", "contrib_function"]


def _is_symbol(x):
    return isinstance(x, Symbol)


def _make(op, ns):
    """The ``mx.sym`` function for ``op`` under the name ``ns``: arguments bound by ``ops.binder``
    (as in ``mx.nd``), missing inputs created as variables by ``compose``.

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import NsName, get_op
    >>> s = _make(get_op("sum"), NsName("sum"))(mx.sym.var("x"), 1, True, name="s")
    >>> s.list_attr()["axis"], s.list_attr()["keepdims"]
    ('1', 'True')
    """
    bind = make_binder(op, ns, is_tensor=_is_symbol, tensor_class=Symbol)
    hint = ns.name.lower()

    def fn(*args, name=None, attr=None, out=None, **kwargs):
        inputs, attrs = bind(args, kwargs)
        return compose(op, inputs, attrs, name=name, attr=attr, hint=hint)

    fn.__name__ = fn.__qualname__ = ns.name
    fn.__doc__ = op.signature_doc()
    sig = signature(bind, ("name", "attr", "out"))
    if sig is not None:
        fn.__signature__ = sig
    fn.op, fn.binder = op, bind
    return fn


def contrib_function(name):
    """The ``mx.sym.contrib`` function of the op ``name`` (``_contrib_X``): named ``X`` and naming
    its nodes ``x0``, ``x1``... as MXNet does (not ``_contrib_x0``).

    >>> import hybridlab as mx
    >>> with mx.name.NameManager():      # a fresh counter
    ...     print(mx.sym.contrib.boolean_mask(mx.sym.var("a"), mx.sym.var("b")).name)
    boolean_mask0
    """
    return _make(get_op(name), NsName(name[len("_contrib_"):]))


def populate(namespace, kind="sym"):
    """Fill ``namespace`` with one function per op name ('sym': MXNet 1.x names; 'sym.random';
    'sym.np' / 'sym.npx': the ops' ``mx.np`` / ``mx.npx`` names, what 1.x ``F.np`` / ``F.npx``
    calls build on Symbols)."""
    added = []
    for op in all_ops():
        if kind == "sym":
            entries = [NsName(n) for n in (op.name,) + op.aliases]
        else:
            entries = list({"sym.random": op.random_names, "sym.np": op.np_names, "sym.npx": op.npx_names}[kind])
        for entry in entries:
            namespace[entry.name] = _make(op, entry)
            added.append(entry.name)
    return added
