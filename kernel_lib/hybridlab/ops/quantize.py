"""MXNet's quantization operators ``_contrib_quantize``, ``_contrib_quantize_v2`` and
``_contrib_dequantize`` (``mx.nd.contrib.quantize`` ...): float32 data to 8-bit integers and back,
with the float range the integers stand for carried as two float32 arrays of shape ``(1,)``.

The formulas are MXNet 1.9.1's reference kernels (``src/operator/quantization``, those of builds
without MKL-DNN and of the GPU; MXNet's own tests expect their values). The MKL-DNN kernels of the
pip packages differ: they scale by 127.5 / 255.5 in places (quantize_v2, dequantize) and ignore a
negative ``min_range`` for uint8, so their results can be one step (or one scale) apart.

* uint8: ``q = floor((x - min_range) * 255 / (max_range - min_range) + 0.5)``, saturated to
  ``[0, 255]`` (MXNet leaves values outside the range undefined); the output range is the input one.
* int8 (zero-centred): with ``r = max(|min_range|, |max_range|)``,
  ``q = sign(x) * trunc(min(|x| * 127 / r + 0.5, 127))``; the output range is ``(-r, r)``.
* ``dequantize``: uint8 ``q * (max_range - min_range) / 255 + min_range``; int8 ``q * r / 127``.
* ``quantize_v2`` takes the range from ``min_calib_range`` / ``max_calib_range`` when both are given,
  else from the data's minimum and maximum; ``out_type='auto'`` is uint8 when ``min_calib_range >= 0``
  and int8 otherwise. Data that is already 8-bit passes through unchanged (its bytes as the output
  type, as MXNet copies them), with the calibration range or the type's full range (0, 255) /
  (-127, 127).

The ops are for inference only: as in MXNet their inputs get a zero gradient.

Example::

    >>> import hybridlab as mx
    >>> a = mx.nd.array([[0.1392, 0.5928], [0.6027, 0.8579]])
    >>> q, lo, hi = mx.nd.contrib.quantize(a, mx.nd.array([0.0]), mx.nd.array([1.0]), out_type='int8')
    >>> q.asnumpy().tolist(), q.dtype.name, lo.asnumpy().tolist(), hi.asnumpy().tolist()
    ([[18, 75], [77, 109]], 'int8', [-1.0], [1.0])
    >>> mx.nd.contrib.dequantize(q, lo, hi).asnumpy().astype("float64").round(4).tolist()
    [[0.1417, 0.5906], [0.6063, 0.8583]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import merge_shape
from .registry import OpDef, register

__all__ = []

_F32, _U8, _I8 = np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.int8)
_Q = {"uint8": _U8, "int8": _I8}


# ---- the kernels (raw arrays; the range as Python floats rounded to float32) ----------------------
def _range_values(lo, hi):
    return float(np.float32(lo)), float(np.float32(hi))


def _quantize_uint8(xp, x, lo, hi):
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        scale = np.float32(np.float64(255.0) / (np.float32(hi) - np.float32(lo)))
        v = xp.floor(((x - np.float32(lo)) * scale).astype(np.float64) + 0.5)    # + 0.5 in double
    v = xp.nan_to_num(v, nan=0.0)
    return xp.clip(v, 0, 255).astype(_U8), (lo, hi)


def _quantize_int8(xp, x, lo, hi):
    r = np.float32(max(abs(lo), abs(hi)))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        scale = np.float32(127.0) / r
        mag = xp.trunc(xp.minimum(xp.abs(x) * scale + np.float32(0.5), np.float32(127.0)))
    sign = (x > 0).astype(_F32) - (x < 0).astype(_F32)
    return xp.nan_to_num(sign * mag, nan=0.0).astype(_I8), (-float(r), float(r))


_KERNELS = {"uint8": _quantize_uint8, "int8": _quantize_int8}


def _range_arrays(xp, lo_hi):
    return tuple(xp.full((1,), v, dtype=_F32) for v in lo_hi)


def _scalar(x, name, i):
    if x.size != 1:
        raise MXNetError(f"{name}: input {i} expected one value (shape (1,)), got shape {x.shape}")
    return float(x.reshape(-1)[0])


def _need(name, i, dtype, allowed, what):
    if dtype is not None and np.dtype(dtype) not in allowed:
        raise MXNetError(f"{name}: input {i} expected dtype {what}, got {np.dtype(dtype).name}")


def _range_shapes(s):
    for i in (1, 2):
        merge_shape(s, i, (1,), "min_range and max_range hold one value")


# ---- quantize -----------------------------------------------------------------------------------
def _quantize_compute(ctx, a, x, lo, hi):
    _quantize_types(a, [x.dtype, lo.dtype, hi.dtype])
    lo_hi = _range_values(_scalar(lo, "_contrib_quantize", 1), _scalar(hi, "_contrib_quantize", 2))
    q, out_range = _KERNELS[a["out_type"]](ctx.xp, x, *lo_hi)
    return (q,) + _range_arrays(ctx.xp, out_range)


def _quantize_infer(a, s):
    _range_shapes(s)
    return [None if s[0] is None else tuple(s[0]), (1,), (1,)]


def _quantize_types(a, d):
    for i in range(3):
        _need("_contrib_quantize", i, d[i], (_F32,), "float32")
        d[i] = _F32
    return [_Q[a["out_type"]], _F32, _F32]


register(OpDef(
    "_contrib_quantize", family="elemwise", inputs=("data", "min_range", "max_range"), num_outputs=3,
    attrs={"out_type": Attr("str", "uint8", choices=("int8", "uint8"), doc="Output data type.")},
    compute=_quantize_compute, infer_shape=_quantize_infer, infer_type=_quantize_types,
    zero_grad=True, no_grad_reason="inference only; MXNet gives the inputs a zero gradient",
    doc="float32 data to uint8 (affine over [min_range, max_range]) or int8 (zero-centred over "
        "max(|min_range|, |max_range|)); outputs the quantized data and its float range."))


# ---- quantize_v2 --------------------------------------------------------------------------------
def _v2_out_type(a):
    if a["out_type"] != "auto":
        return a["out_type"]
    calibrated = a["min_calib_range"] is not None and a["max_calib_range"] is not None
    return "uint8" if calibrated and a["min_calib_range"] >= 0.0 else "int8"


def _v2_compute(ctx, a, x):
    _v2_types(a, [x.dtype])
    xp, out = ctx.xp, _v2_out_type(a)
    calib = a["min_calib_range"] is not None and a["max_calib_range"] is not None
    if x.dtype in (_U8, _I8):     # already quantized: MXNet copies the bytes
        lo_hi = (a["min_calib_range"], a["max_calib_range"]) if calib else (
            (0.0, 255.0) if x.dtype == _U8 else (-127.0, 127.0))
        return (x.view(_Q[out]).copy(),) + _range_arrays(xp, lo_hi)
    if calib:
        lo_hi = _range_values(a["min_calib_range"], a["max_calib_range"])
    elif x.size:
        lo_hi = float(x.min()), float(x.max())
    else:
        raise MXNetError("_contrib_quantize_v2: data expected at least one element to take its range "
                         "from (or min_calib_range and max_calib_range), got an empty array")
    q, out_range = _KERNELS[out](xp, x, *lo_hi)
    return (q,) + _range_arrays(xp, out_range)


def _v2_types(a, d):
    _need("_contrib_quantize_v2", 0, d[0], (_F32, _U8, _I8), "float32, uint8 or int8")
    return [_Q[_v2_out_type(a)], _F32, _F32]


register(OpDef(
    "_contrib_quantize_v2", family="elemwise", num_outputs=3,
    attrs={"out_type": Attr("str", "int8", choices=("auto", "int8", "uint8"),
                            doc="Output data type; 'auto': uint8 when min_calib_range >= 0, else int8."),
           "min_calib_range": Attr("float?", None, doc="The calibrated minimum (with max_calib_range: the "
                                                       "range used instead of the data's)."),
           "max_calib_range": Attr("float?", None, doc="The calibrated maximum.")},
    compute=_v2_compute, infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0]), (1,), (1,)],
    infer_type=_v2_types,
    zero_grad=True, no_grad_reason="inference only; MXNet gives the input a zero gradient",
    doc="quantize with the range taken from min/max_calib_range or else from the data; outputs the "
        "quantized data and its float range."))


# ---- dequantize ---------------------------------------------------------------------------------
def _dequantize_compute(ctx, a, q, lo, hi):
    _dequantize_types(a, [q.dtype, lo.dtype, hi.dtype])
    lo_v, hi_v = _range_values(_scalar(lo, "_contrib_dequantize", 1), _scalar(hi, "_contrib_dequantize", 2))
    if q.dtype == _U8:
        scale = np.float32((np.float32(hi_v) - np.float32(lo_v)) / np.float32(255.0))
        return (q.astype(_F32) * scale + np.float32(lo_v)).astype(_F32, copy=False)
    r = np.float32(max(abs(lo_v), abs(hi_v)))
    return q.astype(_F32) * (r / np.float32(127.0))


def _dequantize_infer(a, s):
    _range_shapes(s)
    return [None if s[0] is None else tuple(s[0])]


def _dequantize_types(a, d):
    _need("_contrib_dequantize", 0, d[0], (_U8, _I8), "uint8 or int8")
    for i in (1, 2):
        _need("_contrib_dequantize", i, d[i], (_F32,), "float32")
        d[i] = _F32
    return [_F32]


register(OpDef(
    "_contrib_dequantize", family="elemwise", inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "float32", choices=("float32",), doc="Output data type.")},
    compute=_dequantize_compute, infer_shape=_dequantize_infer, infer_type=_dequantize_types,
    zero_grad=True, no_grad_reason="inference only; MXNet gives the inputs a zero gradient",
    doc="uint8/int8 data back to float32 over the range [min_range, max_range] quantize gave."))
