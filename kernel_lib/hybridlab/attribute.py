"""Attributes every symbol created in a scope gets (MXNet's ``mx.AttrScope``): ``ctx_group`` for
placing a part of a graph on a device group, ``__lr_mult__`` for a set of parameters, a marker
of one's own. Scopes nest: an inner scope adds to (and overrides) the outer one's attributes; an
attribute given to the symbol itself wins over the scope's. As in MXNet, ``ctx_group``, ``lr_mult``,
``wd_mult``, ``force_mirroring`` and ``mirror_stage`` are stored as ``__key__`` (``HIDDEN_KEYS``).

Example::

    >>> import hybridlab as mx
    >>> with mx.AttrScope(ctx_group='stage1'):
    ...     x = mx.sym.var('x')
    ...     with mx.AttrScope(__lr_mult__='0.5'):
    ...         y = mx.sym.relu(x, name='y')
    >>> x.attr('ctx_group'), sorted(y.list_attr().items())
    ('stage1', [('__ctx_group__', 'stage1'), ('__lr_mult__', '0.5')])
    >>> mx.sym.var('z').list_attr()
    {}
"""
import threading

__all__ = ["AttrScope", "current", "HIDDEN_KEYS", "stored_key", "node_attrs"]

_local = threading.local()

# keys MXNet stores as ``__key__`` on a node (``ctx_group`` is kept as ``__ctx_group__``); reading
# ``attr('lr_mult')`` finds ``__lr_mult__``
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def stored_key(key):
    """The key an attribute is stored under on a node: ``__ctx_group__`` for ``ctx_group``."""
    return f"__{key}__" if key in HIDDEN_KEYS else key


def node_attrs(attr):
    """The attributes a new node gets: the current scope's, then ``attr`` (the call's own, which win),
    as strings under their stored keys."""
    return {stored_key(k): str(v) for k, v in current().get(attr).items()}


class AttrScope:
    """``with AttrScope(key='value', ...)``: symbols created inside carry these attributes (strings)."""

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError(f"AttrScope: attribute {key!r} expected a string value, got "
                                 f"{type(value).__name__} {value!r}")
        self._attr = dict(kwargs)
        self._old = None

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (the symbol's own, which win); a new dict."""
        out = dict(self._attr)
        out.update(attr or {})
        return out

    def __enter__(self):
        self._old = current()
        self._attr = {**self._old._attr, **self._attr}
        _local.scope = self
        return self

    def __exit__(self, *exc):
        _local.scope = self._old


def current():
    """The innermost scope entered in this thread (an empty one outside any)."""
    scope = getattr(_local, "scope", None)
    if scope is None:
        scope = _local.scope = AttrScope()
    return scope
