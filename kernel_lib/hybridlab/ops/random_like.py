"""``_random_*_like`` (``mx.nd.random.normal_like``, ``mx.sym.random.uniform_like``, ...): samples
of a distribution whose parameters are attributes, shaped like the input ``data`` and in its dtype
(``data``'s values are not read). The draws are those of the ``_random_*`` ops (ops/random.py), so
``mx.random.seed`` makes them reproducible; ``data`` gets no gradient (MXNet gives it none).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.ones((2, 3), dtype='float64')
    >>> y = mx.nd.random.uniform_like(x, low=2, high=3)
    >>> v = y.asnumpy(); y.shape, y.dtype, bool(((v >= 2) & (v < 3)).all())
    ((2, 3), dtype('float64'), True)
    >>> mx.random.seed(1); a = mx.nd.random.normal_like(x, loc=1, scale=2)
    >>> mx.random.seed(1); b = mx.nd._random_normal(loc=1, scale=2, shape=(2, 3), dtype='float64')
    >>> bool((a == b).asnumpy().all())
    True
"""
import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .random import _DISTS, _VALID
from .registry import NsName, OpDef, register

__all__ = []


def like_op(dist):
    params, _, sampler = _DISTS[dist]
    names = tuple(p[0] for p in params)
    attrs = {n: Attr("int" if isinstance(d, int) else "float", d, doc=h) for n, d, h in params}

    def compute(ctx, a, data):
        valid, expected = _VALID.get(dist, (None, None))
        if valid is not None and not valid(a):
            raise MXNetError(f"_random_{dist}_like: expected {expected}, got "
                             f"{', '.join(f'{n}={a[n]}' for n in names)}")
        if data.dtype.kind != "f":
            raise MXNetError(f"_random_{dist}_like: data expected a floating point dtype, got {data.dtype}")
        try:
            out = sampler(ctx.rng, [a[n] for n in names], tuple(data.shape))
        except ValueError as err:
            raise MXNetError(f"_random_{dist}_like: invalid distribution parameters "
                             f"{ {n: a[n] for n in names} }: {err}") from None
        return ctx.xp.asarray(out).astype(data.dtype)

    return register(OpDef(
        f"_random_{dist}_like", inputs=("data",), attrs=attrs, compute=compute,
        infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0])],
        random=NsName(f"{dist}_like", args=names), family="random", needs_rng=True, zero_grad=True,
        no_grad_reason="random sampling: the output is not a differentiable function of the inputs",
        doc=f"Samples from the {dist.replace('_', ' ')} distribution (parameters "
            f"{', '.join(names)} as attributes) with the shape and dtype of data."))


for _dist in _DISTS:
    like_op(_dist)
