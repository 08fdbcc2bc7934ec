"""Op-checker cases for ops/amp_multicast.py: float16/float32 inputs cast to one common type; other
inputs pass unchanged (dtype rules recorded from MXNet 1.9.1)."""
import numpy as np

from op_checker import Case


def ref_multicast(*xs, num_outputs, cast_narrow=False):
    dts = [x.dtype for x in xs]
    if cast_narrow:
        common = np.float16 if np.float16 in dts else np.float32
    else:
        common = np.float32 if np.float32 in dts else dts[0]
    return tuple(x.astype(common) if x.dtype in (np.float16, np.float32) else x for x in xs)


CASES = [
    Case("amp_multicast", [(2, 3), (2, 3)], attrs={"num_outputs": 2}, ref=ref_multicast),
    Case("amp_multicast", [(3,), (3,), (3,)], attrs={"num_outputs": 3, "cast_narrow": True}, ref=ref_multicast,
         name="narrow", rtol=1e-3, atol=1e-3),
    Case("amp_multicast", [np.arange(4, dtype=np.int32), (4,)], attrs={"num_outputs": 2}, ref=ref_multicast,
         name="int_passes", grad=(1,)),
]
