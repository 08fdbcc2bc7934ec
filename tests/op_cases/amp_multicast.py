"""Op-checker cases for ops/amp_multicast.py: float16/bfloat16/float32 inputs cast to one common type;
other inputs pass unchanged (dtype rules recorded from MXNet 1.9.1)."""
import numpy as np

from hybridlab.base import bfloat16
from op_checker import Case

_LOW = (np.dtype(np.float16), bfloat16, np.dtype(np.float32))


def ref_multicast(*xs, num_outputs, cast_narrow=False):
    dts = [x.dtype for x in xs]
    if cast_narrow:
        common = ([d for d in dts if d in _LOW[:2]] or [np.dtype(np.float32)])[-1]
    else:
        common = np.float32 if np.float32 in dts else dts[0]
    return tuple(x.astype(common) if x.dtype in _LOW else x for x in xs)


CASES = [
    Case("amp_multicast", [(2, 3), (2, 3)], attrs={"num_outputs": 2}, ref=ref_multicast),
    Case("amp_multicast", [(3,), (3,), (3,)], attrs={"num_outputs": 3, "cast_narrow": True}, ref=ref_multicast,
         name="narrow", rtol=1e-3, atol=1e-3),
    Case("amp_multicast", [np.arange(4, dtype=np.int32), (4,)], attrs={"num_outputs": 2}, ref=ref_multicast,
         name="int_passes", grad=(1,)),
    Case("amp_multicast", [np.array([1.5, -2.0, 0.25], dtype=bfloat16), (3,)], attrs={"num_outputs": 2},
         ref=ref_multicast, name="bfloat16_widest", grad=(1,)),
    Case("amp_multicast", [(3,), np.array([1.5, -2.0, 0.25], dtype=bfloat16)],
         attrs={"num_outputs": 2, "cast_narrow": True}, ref=ref_multicast, name="bfloat16_narrow", grad=(0,),
         rtol=1e-2, atol=1e-2),
]
