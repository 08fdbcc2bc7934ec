"""Op-checker cases for the compiler-made ops (ops/fused.py): ``_fused_elemwise`` (fast NumPy out=
path, the step-by-step fallback for integer inputs, broadcasting and a tree-shaped program) and
``_constant``."""
import json

import numpy as np

from hybridlab.ops.fused import add_constant

from op_checker import Case

CHAIN = json.dumps([["exp", {}, [0]], ["broadcast_add", {}, [2, 1]], ["_mul_scalar", {"scalar": "2.0"}, [3]],
                    ["tanh", {}, [4]]])
TREE = json.dumps([["sin", {}, [0]], ["square", {}, [1]], ["elemwise_mul", {}, [2, 3]],
                   ["_rminus_scalar", {"scalar": "1.5"}, [4]]])
MIXED = json.dumps([["broadcast_add", {}, [0, 1]], ["negative", {}, [2]]])

_CONST = np.arange(6, dtype=np.float32).reshape(2, 3)
_CONST_KEY, _CONST_HOLDER = add_constant(_CONST)     # the module keeps the holder alive


CASES = [
    Case("_fused_elemwise", [(2, 3), (3,)], attrs={"num_args": 2, "program": CHAIN}, name="chain",
         ref=lambda x, b, **a: np.tanh((np.exp(x) + b) * 2.0)),
    Case("_fused_elemwise", [(2, 3), (2, 3)], attrs={"num_args": 2, "program": TREE}, name="tree",
         ref=lambda x, y, **a: 1.5 - np.sin(x) * y * y),
    Case("_fused_elemwise", [(2, 3), np.array([1, -2, 3], dtype=np.int32)], attrs={"num_args": 2, "program": MIXED},
         name="mixed_dtype_fallback", grad=[0], ref=lambda x, k, **a: -(x + k)),
    Case("_constant", [], attrs={"key": _CONST_KEY, "shape": (2, 3), "dtype": "float32"}, grad=(),
         ref=lambda **a: _CONST),
]
