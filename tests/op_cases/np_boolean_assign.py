"""Op-checker cases for the boolean-mask assignment ops: NumPy's ``data[..., mask, ...] = value``
is the reference."""
import numpy as np

from op_checker import Case


def ref_assign(data, mask, value=None, start_axis=0, **a):
    out = data.copy()
    out[(slice(None),) * start_axis + (mask,)] = a["value"] if value is None else value
    return out


MASK = np.array([[True, False, True], [False, False, True]])

CASES = [
    Case("_npi_boolean_mask_assign_scalar", [(2, 3, 4), MASK], attrs={"value": 7.0}, ref=ref_assign, grad=()),
    Case("_npi_boolean_mask_assign_scalar", [(4, 2, 3), MASK], attrs={"value": -1.0, "start_axis": 1},
         ref=ref_assign, grad=(), name="start-axis-1"),
    Case("_npi_boolean_mask_assign_tensor", [(2, 3, 4), MASK, (3, 4)], ref=ref_assign, grad=()),
    Case("_npi_boolean_mask_assign_tensor", [(2, 3, 4), MASK, (1, 4)], ref=ref_assign, grad=(),
         name="broadcast"),
    Case("_npi_boolean_mask_assign_tensor", [(4, 2, 3), MASK, (4, 1)], attrs={"start_axis": 1},
         ref=ref_assign, grad=(), name="start-axis-1"),
]
