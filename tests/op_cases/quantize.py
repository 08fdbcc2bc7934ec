"""Op-checker cases for ops/quantize.py: _contrib_quantize (uint8 affine, int8 zero-centred, values
outside the range saturated), _contrib_quantize_v2 (calibrated, from the data's range, 'auto', 8-bit
data passed through) and _contrib_dequantize (uint8 and int8). References apply MXNet's formulas to
one element at a time in float32."""
import math

import numpy as np

from op_checker import Case

F32 = np.float32


def _q_uint8(x, lo, hi):
    scale = F32(255.0 / (F32(hi) - F32(lo)))
    return np.array([min(max(math.floor(F32(F32(v - F32(lo)) * scale) + 0.5), 0), 255) for v in x.ravel()],
                    np.uint8).reshape(x.shape)


def _q_int8(x, lo, hi):
    r = max(abs(F32(lo)), abs(F32(hi)))
    scale = F32(F32(127.0) / r)
    vals = [int(np.sign(v)) * math.trunc(min(float(F32(abs(v) * scale) + F32(0.5)), 127.0)) for v in x.ravel()]
    return np.array(vals, np.int8).reshape(x.shape)


def _ranges(lo, hi):
    return np.array([lo], F32), np.array([hi], F32)


def ref_quantize(x, lo, hi, out_type="uint8"):
    lo, hi = float(lo[0]), float(hi[0])
    if out_type == "uint8":
        return (_q_uint8(x, lo, hi),) + _ranges(lo, hi)
    r = max(abs(F32(lo)), abs(F32(hi)))
    return (_q_int8(x, lo, hi),) + _ranges(-r, r)


def ref_quantize_v2(x, out_type="int8", min_calib_range=None, max_calib_range=None):
    calib = min_calib_range is not None and max_calib_range is not None
    if out_type == "auto":
        out_type = "uint8" if calib and min_calib_range >= 0 else "int8"
    if x.dtype in (np.uint8, np.int8):
        lo_hi = (min_calib_range, max_calib_range) if calib else ((0, 255) if x.dtype == np.uint8 else (-127, 127))
        return (x.view(out_type),) + _ranges(*lo_hi)
    lo, hi = (min_calib_range, max_calib_range) if calib else (float(x.min()), float(x.max()))
    return ref_quantize(x, *_ranges(lo, hi), out_type=out_type)


def ref_dequantize(q, lo, hi, out_type="float32"):
    lo, hi = F32(lo[0]), F32(hi[0])
    if q.dtype == np.uint8:
        return q.astype(np.float64) * float(F32((hi - lo) / F32(255))) + float(lo)
    return q.astype(np.float64) * float(F32(max(abs(lo), abs(hi)) / F32(127)))


DATA = np.array([[0.1392, 0.5928, -0.3], [0.6027, 0.8579, 1.4]], F32)
RANGE = [np.array([-0.5], F32), np.array([1.0], F32)]

CASES = [
    Case("_contrib_quantize", [DATA] + RANGE, grad=(), ref=ref_quantize, name="uint8"),
    Case("_contrib_quantize", [DATA] + RANGE, attrs={"out_type": "int8"}, grad=(), ref=ref_quantize, name="int8"),
    Case("_contrib_quantize", [(3, 4), np.array([-2.0], F32), np.array([1.5], F32)], attrs={"out_type": "int8"},
         grad=(), ref=ref_quantize, name="int8_random"),
    Case("_contrib_quantize_v2", [DATA], grad=(), ref=ref_quantize_v2),
    Case("_contrib_quantize_v2", [DATA], attrs={"out_type": "uint8"}, grad=(), ref=ref_quantize_v2,
         name="uint8_data_range"),
    Case("_contrib_quantize_v2", [DATA], attrs={"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 1.0},
         grad=(), ref=ref_quantize_v2, name="auto_calibrated_uint8"),
    Case("_contrib_quantize_v2", [DATA], attrs={"min_calib_range": -1.0, "max_calib_range": 0.5},
         grad=(), ref=ref_quantize_v2, name="int8_calibrated"),
    Case("_contrib_quantize_v2", [np.array([3, -100, 127], np.int8)], grad=(), ref=ref_quantize_v2,
         name="int8_passthrough"),
    Case("_contrib_quantize_v2", [np.array([3, 200], np.uint8)], attrs={"out_type": "uint8", "min_calib_range": 0.0,
         "max_calib_range": 4.0}, grad=(), ref=ref_quantize_v2, name="uint8_passthrough"),
    Case("_contrib_dequantize", [np.array([[0, 128, 255]], np.uint8), np.array([-1.0], F32), np.array([3.0], F32)],
         grad=(), ref=ref_dequantize, name="uint8"),
    Case("_contrib_dequantize", [np.array([[-127, 5, 127]], np.int8), np.array([-1.0], F32), np.array([3.0], F32)],
         grad=(), ref=ref_dequantize, name="int8"),
]
