"""Op-checker cases for ``_np_reshape`` (ops/shape.py): NumPy's reshape rules."""
from op_checker import Case

CASES = [
    Case("_np_reshape", [(2, 3, 4)], attrs={"newshape": (4, -1)}, ref=lambda x, newshape, **a: x.reshape(newshape),
         name="infer_one"),
    Case("_np_reshape", [(6,)], attrs={"newshape": (3, 2)}, ref=lambda x, newshape, **a: x.reshape(newshape)),
    Case("_np_reshape", [(1, 1)], attrs={"newshape": ()}, ref=lambda x, newshape, **a: x.reshape(()), name="to_0d"),
]
