"""Small helpers shared by the Gluon blocks: hook handles, nested-argument flattening (MXNet's
``_flatten``/``_regroup`` formats), printing helpers.

Example::

    >>> from hybridlab.gluon.utils import flatten, regroup
    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((1,)), mx.nd.zeros((1,))
    >>> flat, fmt = flatten([a, [b, None]], "input")
    >>> len(flat), fmt
    (3, [0, [0, -1]])
    >>> regroup(flat, fmt)[1][1] is None
    True
"""
import weakref

from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol

__all__ = ["HookHandle", "flatten", "regroup", "indent", "brief_print_list", "shape_is_known",
           "split_data", "split_and_load", "clip_global_norm"]


class HookHandle:
    """A handle that removes a registered hook again: ``handle.detach()`` (or use it as a context
    manager)."""

    _next_id = 0

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        if self._hooks_dict_ref is not None:
            raise RuntimeError("The same handle cannot be attached twice.")
        HookHandle._next_id += 1
        self._id = HookHandle._next_id
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
        return False


def flatten(args, inout_str):
    """``(flat list, format)``: nested lists of NDArrays/Symbols flattened; the format records the
    structure (0 one array, n a Symbol group of n, -1 None, a list for a list)."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError(f"When hybridized, the {inout_str} of HybridBlock must be (nested) list of Symbol "
                         f"or NDArray, but got {args!r} of type {type(args)}")
    flat, fmts = [], []
    for item in args:
        arg, fmt = flatten(item, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """Rebuild the nested structure ``fmt`` (from ``flatten``) from the flat list ``args``."""
    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError(f"Unsupported encoded format {fmt}.")
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError("We do not support passing types that are not None when the initial "
                                     "HybridBlock has received NoneType and has been hybridized. "
                                     f"Received arg = {args[0]}, fmt = {fmt}.")
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError(f"When hybridized, the output of HybridBlock must be (nested) list of Symbol "
                             f"or NDArray, but got {args} of type {type(args)}")
        ret = []
        for f in fmt:
            res, args = merge(args, f)
            ret.append(res)
        return ret, args
    return merge(args, fmt)[0]


def indent(s_, num_spaces):
    """Indent every line of ``s_`` but the first by ``num_spaces`` (MXNet's nested repr)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * num_spaces + line for line in lines)


def brief_print_list(lst, limit=7):
    """``'a', 'b', ..., 'z'``: a list shortened for error messages."""
    lst = list(lst)
    if len(lst) > limit:
        return brief_print_list(lst[:limit // 2], limit) + ", ..., " + brief_print_list(lst[-limit // 2:], limit)
    return ", ".join(f"'{str(i)}'" for i in lst)


def shape_is_known(shape):
    """True when ``shape`` is given and has no unknown (0 or -1) dimension."""
    if shape is None:
        return False
    return all(d > 0 for d in shape)


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis``. With ``even_split=False`` the
    first ``size % num_slice`` slices get one more row, as MXNet (4 rows in 3: sizes 2, 1, 1; fewer
    rows than slices leaves the last slices empty).

    Example::

        >>> import hybridlab as mx
        >>> parts = mx.gluon.utils.split_data(mx.nd.ones((4, 2)), 3, even_split=False)
        >>> [p.shape[0] for p in parts]
        [2, 1, 1]
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(f"data with shape {data.shape} cannot be evenly split into {num_slice} slices along "
                         f"axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
                         f"even_split=False to allow uneven partitioning of data.")
    n_each, extras = divmod(size, num_slice)
    bounds = [0]
    for i in range(num_slice):
        bounds.append(bounds[-1] + n_each + (1 if i < extras else 0))
    index = [slice(None)] * len(data.shape)
    slices = []
    for i in range(num_slice):
        index[batch_axis] = slice(bounds[i], bounds[i + 1])
        slices.append(data[tuple(index)])
    return slices


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` along ``batch_axis`` and load one slice onto each device of ``ctx_list``."""
    from ..ndarray.ndarray import array
    if not isinstance(data, NDArray):
        data = array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so that their joint L2 norm is at most ``max_norm``; returns the norm."""
    import numpy as np
    total = float(np.sqrt(sum(float((a.asnumpy().astype(np.float64) ** 2).sum()) for a in arrays)))
    if check_isfinite and not np.isfinite(total):
        import warnings
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a *= scale
    return total
