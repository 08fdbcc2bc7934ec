"""Boolean-mask assignment, MXNet's ``_npi_boolean_mask_assign_scalar`` and
``_npi_boolean_mask_assign_tensor`` (``mx.np._internal.boolean_mask_assign_*``; what
``a[mask] = value`` runs in MXNet): ``data`` with the positions ``mask`` selects set to ``value``.
The mask covers the axes ``start_axis .. start_axis + mask.ndim - 1`` of ``data``, as the index
``data[(slice(None),) * start_axis + (mask,)]`` does in NumPy; the tensor ``value`` broadcasts to
the selected block (its mask axis is the number of true mask elements, or 1). MXNet writes into
``data`` (``out=data``); here the op returns the result and ``out=`` writes it back. The inputs
get zero gradients (MXNet's ``MakeZeroGradNodes``).

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.zeros((2, 3))
    >>> mask = mx.np.array([True, False])
    >>> _ = mx.np._internal.boolean_mask_assign_scalar(x, mask, 5.0, start_axis=0, out=x)
    >>> x.tolist()
    [[5.0, 5.0, 5.0], [0.0, 0.0, 0.0]]
    >>> mx.np._internal.boolean_mask_assign_tensor(x, mask, mx.np.array([1.0, 2.0, 3.0])).tolist()
    [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
"""
from ..base import MXNetError
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_NO_GRAD = "assignment through a boolean mask: MXNet gives data, mask and value zero gradients"


def _check_mask(name, a, dshape, mshape):
    start = a["start_axis"]
    if start < 0 or start + len(mshape) > len(dshape) or \
            tuple(dshape[start:start + len(mshape)]) != tuple(mshape):
        raise MXNetError(f"{name}: mask shape {tuple(mshape)} expected to match the axes from start_axis "
                         f"{start} of data shape {tuple(dshape)}, got a mismatch")


def _infer_shape(name):
    def infer(a, in_shapes):
        dshape, mshape = in_shapes[0], in_shapes[1]
        if dshape is not None and mshape is not None:
            _check_mask(name, a, dshape, mshape)
        return [None if dshape is None else tuple(dshape)]
    return infer


def _infer_type(a, in_dtypes):
    if len(in_dtypes) == 3:     # the value tensor shares the data's dtype
        known = in_dtypes[0] if in_dtypes[0] is not None else in_dtypes[2]
        in_dtypes[0] = in_dtypes[2] = known
    return [in_dtypes[0]]


def _assign(name, ctx, a, data, mask, value):
    _check_mask(name, a, data.shape, mask.shape)
    out = data.copy()
    index = (slice(None),) * a["start_axis"] + (mask.astype(bool),)
    try:
        out[index] = value
    except ValueError as err:
        raise MXNetError(f"{name}: value of shape {getattr(value, 'shape', ())} expected to broadcast to "
                         f"the {int(mask.sum())} selected positions of data {tuple(data.shape)}: {err}") from None
    return out


_START = Attr("int", 0, doc="The first axis of data the mask covers.")

register(OpDef(
    "_npi_boolean_mask_assign_scalar", inputs=("data", "mask"), family="index",
    attrs={"value": Attr("float", doc="The value assigned to the masked positions."), "start_axis": _START},
    compute=lambda ctx, a, data, mask: _assign("_npi_boolean_mask_assign_scalar", ctx, a, data, mask,
                                               a["value"]),
    infer_shape=_infer_shape("_npi_boolean_mask_assign_scalar"),
    infer_type=lambda a, dts: [dts[0]], zero_grad=True, no_grad_reason=_NO_GRAD,
    doc="data with the positions the bool mask selects (from axis start_axis) set to the number value."))

register(OpDef(
    "_npi_boolean_mask_assign_tensor", inputs=("data", "mask", "value"), family="index",
    attrs={"start_axis": _START},
    compute=lambda ctx, a, data, mask, value: _assign("_npi_boolean_mask_assign_tensor", ctx, a, data, mask,
                                                      value.astype(data.dtype)),
    infer_shape=_infer_shape("_npi_boolean_mask_assign_tensor"), infer_type=_infer_type,
    zero_grad=True, no_grad_reason=_NO_GRAD,
    doc="data with the positions the bool mask selects (from axis start_axis) set to value, broadcast "
        "to the selected block."))
