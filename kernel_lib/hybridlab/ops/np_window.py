"""Window functions ``_npi_hanning``, ``_npi_hamming``, ``_npi_blackman`` (``mx.np.hanning(M,
dtype=float32, ctx=None)`` and the others): ``M`` points of the window, as NumPy's (computed in
float64 by the device's array module, cast to ``dtype``, float32 by default as MXNet's); ``M < 1``
gives an empty array, ``M == 1`` gives ``[1.]``. No inputs, so no gradient.

Example::

    >>> import hybridlab as mx
    >>> mx.np.hanning(5).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    >>> mx.np.hamming(0).shape, mx.np.blackman(3, dtype='float64').dtype
    ((0,), dtype('float64'))
"""
from .attrs import Attr
from .creation import _NO_GRAD, _common, _out_type
from .registry import NsName, OpDef, register

__all__ = []

_WINDOWS = {
    "hanning": "the Hann window 0.5 - 0.5 cos(2 pi n / (M - 1))",
    "hamming": "the Hamming window 0.54 - 0.46 cos(2 pi n / (M - 1))",
    "blackman": "the Blackman window 0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))",
}


def _window(name):
    def compute(ctx, a):
        return getattr(ctx.xp, name)(a["M"]).astype(a["dtype"])

    register(OpDef(f"_npi_{name}", inputs=(), compute=compute, infer_shape=lambda a, s: [(max(a["M"], 0),)],
                   infer_type=_out_type, attrs={"M": Attr("int", doc="Number of points (< 1: an empty array)."),
                                                **_common()},
                   np=NsName(name, rename={"device": "ctx"}, args=("M", "dtype", "ctx")), family="creation",
                   device_attr="ctx", no_grad_reason=_NO_GRAD,
                   doc=f"The M points of {_WINDOWS[name]}, as numpy.{name}."))


for _name in _WINDOWS:
    _window(_name)
