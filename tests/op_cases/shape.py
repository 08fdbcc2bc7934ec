"""Op-checker cases for shape, slicing and broadcasting ops (shape.py, shape_slice.py)."""
import numpy as np

from op_checker import Case


def to_shape(shape):
    return lambda x, **kw: x.reshape(shape)


def _d2s_ref(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    out = np.zeros((n, c // (b * b), h * b, w * b), x.dtype)
    for i in range(b):
        for j in range(b):
            for ch in range(c // (b * b)):
                out[:, ch, i::b, j::b] = x[:, (i * b + j) * (c // (b * b)) + ch]
    return out


def _s2d_ref(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    out = np.zeros((n, c * b * b, h // b, w // b), x.dtype)
    for i in range(b):
        for j in range(b):
            for ch in range(c):
                out[:, (i * b + j) * c + ch] = x[:, ch, i::b, j::b]
    return out


def _slice_ref(x, begin, end, step=()):
    key = []
    for i in range(len(begin)):
        key.append(slice(begin[i], end[i], step[i] if step else None))
    return x[tuple(key)]


def _slice_assign_ref(lhs, rhs, begin, end, step=()):
    out = lhs.copy()
    out[tuple(slice(b, e, s) for b, e, s in zip(begin, end, step or [None] * len(begin)))] = rhs
    return out


def _pad_ref(x, mode, pad_width, constant_value=0.0):
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        return np.pad(x, pairs, mode="constant", constant_values=constant_value)
    return np.pad(x, pairs, mode=mode)


def _pad_backward_ref(g, mode, pad_width):
    """Adjoint of Pad: each padded position adds into the input position it was copied from."""
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(g.ndim)]
    shape = tuple(d - lo - hi for d, (lo, hi) in zip(g.shape, pairs))
    source = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        src = np.pad(source, pairs, mode="constant", constant_values=-1)
    else:
        src = np.pad(source, pairs, mode=mode)
    out = np.zeros(int(np.prod(shape)))
    for s, v in zip(src.reshape(-1), g.reshape(-1)):
        if s >= 0:
            out[s] += v
    return out.reshape(shape).astype(g.dtype)


def _split_ref(x, axis, bounds, squeeze=False):
    parts = [np.take(x, range(b, e), axis=axis) for b, e in bounds]
    return [np.squeeze(p, axis) if squeeze else p for p in parts]


CASES = [
    Case("Reshape", [(2, 3, 4)], attrs={"shape": (0, -1)}, ref=to_shape((2, 12)), name="copy_infer"),
    Case("Reshape", [(2, 3, 4)], attrs={"shape": (-3, -2)}, ref=to_shape((6, 4)), name="merge_rest"),
    Case("Reshape", [(4, 3, 2)], attrs={"shape": (-4, -1, 2, -2)}, ref=to_shape((2, 2, 3, 2)), name="split"),
    Case("Reshape", [(2, 3, 4)], attrs={"shape": (0, 0, -4, 2, -1)}, ref=to_shape((2, 3, 2, 2)), name="split_infer"),
    Case("Reshape", [(5, 2, 2)], attrs={"shape": (-1, 0), "reverse": True}, ref=to_shape((10, 2)), name="reverse"),
    Case("Reshape", [(2, 3, 4)], attrs={"shape": -1}, ref=to_shape((24,)), name="flat"),
    Case("Reshape", [(1, 1)], attrs={"shape": ()}, ref=to_shape(()), name="to_0d"),
    Case("Reshape", [(2, 3, 4)], attrs={"target_shape": (0, 4)}, ref=to_shape((6, 4)), name="target_shape"),
    Case("Reshape", [(2, 3, 4)], attrs={"target_shape": (5, 0), "keep_highest": True}, ref=to_shape((2, 12)),
         name="keep_highest"),
    Case("reshape_like", [(2, 3, 4), (6, 4)], grad=(0,), ref=lambda l, r: l.reshape(r.shape)),
    Case("reshape_like", [(2, 3, 2), (1, 6, 1)], grad=(0,), name="ranges",
         attrs={"lhs_begin": 1, "lhs_end": None, "rhs_begin": 1, "rhs_end": 2},
         ref=lambda l, r, **kw: l.reshape(2, 6)),
    Case("shape_array", [(2, 3, 4)], grad=(), ref=lambda x: np.array(x.shape, np.int64)),
    Case("size_array", [(2, 3, 4)], grad=(), ref=lambda x: np.array([x.size], np.int64)),
    Case("expand_dims", [(2, 3)], attrs={"axis": 1}, ref=lambda x, axis: x[:, None]),
    Case("expand_dims", [(2, 3)], attrs={"axis": -1}, ref=lambda x, axis: x[:, :, None], name="negative"),
    Case("squeeze", [(2, 1, 3, 1)], ref=lambda x: x.reshape(2, 3)),
    Case("squeeze", [(2, 1, 3, 1)], attrs={"axis": (1,)}, ref=lambda x, axis: x.reshape(2, 3, 1), name="axis"),
    Case("squeeze", [(1, 1)], ref=lambda x: x.reshape(1), name="all_gives_1"),
    Case("_np_squeeze", [(1, 1)], ref=lambda x: x.reshape(()), name="all_gives_0d"),
    Case("_np_squeeze", [(1, 3, 1)], attrs={"axis": (-1,)}, ref=lambda x, axis: x.reshape(1, 3)),
    Case("transpose", [(2, 3, 4)], ref=lambda x: x.transpose()),
    Case("transpose", [(2, 3, 4)], attrs={"axes": (1, 0, 2)}, ref=lambda x, axes: x.transpose(axes), name="axes"),
    Case("SwapAxis", [(2, 3, 4)], attrs={"dim1": 0, "dim2": 2}, ref=lambda x, dim1, dim2: np.swapaxes(x, 0, 2)),
    Case("_np_transpose", [(2, 3, 4)], ref=lambda x: x.transpose()),
    Case("_np_transpose", [(2, 3, 4)], attrs={"axes": (-1, 0, 1)}, ref=lambda x, axes: x.transpose(axes),
         name="negative_axes"),
    Case("Flatten", [(2, 3, 2)], ref=lambda x: x.reshape(2, 6)),
    Case("Flatten", [(4,)], ref=lambda x: x.reshape(4, 1), name="1d"),
    Case("Concat", [(2, 1), (2, 3), (2, 2)], attrs={"num_args": 3}, ref=lambda *xs, num_args: np.concatenate(xs, 1)),
    Case("Concat", [(1, 3), (2, 3)], attrs={"num_args": 2, "dim": 0}, name="dim0",
         ref=lambda *xs, num_args, dim: np.concatenate(xs, 0)),
    Case("_rnn_param_concat", [(3,), (5,)], attrs={"num_args": 2, "dim": 0},
         ref=lambda *xs, num_args, dim: np.concatenate(xs)),
    Case("stack", [(2, 3), (2, 3)], attrs={"num_args": 2, "axis": 1}, ref=lambda *xs, num_args, axis: np.stack(xs, 1)),
    Case("stack", [(3,), (3,), (3,)], attrs={"num_args": 3}, ref=lambda *xs, num_args: np.stack(xs), name="axis0"),
    Case("SliceChannel", [(2, 6)], attrs={"num_outputs": 3},
         ref=lambda x, num_outputs: _split_ref(x, 1, [(0, 2), (2, 4), (4, 6)])),
    Case("SliceChannel", [(2, 3)], attrs={"num_outputs": 2, "axis": 0, "squeeze_axis": True}, name="squeeze",
         ref=lambda x, **kw: _split_ref(x, 0, [(0, 1), (1, 2)], True)),
    Case("SliceChannel", [(3, 4)], attrs={"num_outputs": 1, "axis": -1}, ref=lambda x, **kw: x, name="one"),
    Case("_split_v2", [(2, 5)], attrs={"indices": (0, 1, 3), "axis": 1}, name="indices",
         ref=lambda x, **kw: _split_ref(x, 1, [(0, 1), (1, 3), (3, 5)])),
    Case("_split_v2", [(4, 3)], attrs={"sections": 2, "axis": 0, "indices": ()}, name="sections",
         ref=lambda x, **kw: _split_ref(x, 0, [(0, 2), (2, 4)])),
    Case("tile", [(2, 3)], attrs={"reps": (2, 2)}, ref=lambda x, reps: np.tile(x, reps)),
    Case("tile", [(2, 3)], attrs={"reps": (2, 1, 2)}, ref=lambda x, reps: np.tile(x, reps), name="more_reps"),
    Case("tile", [(2, 3)], attrs={"reps": (3,)}, ref=lambda x, reps: np.tile(x, reps), name="fewer_reps"),
    Case("repeat", [(2, 3)], attrs={"repeats": 2, "axis": 1}, ref=lambda x, repeats, axis: np.repeat(x, 2, 1)),
    Case("repeat", [(2, 3)], attrs={"repeats": 2}, ref=lambda x, repeats: np.repeat(x, 2), name="flat"),
    Case("repeat", [(2, 3, 2)], attrs={"repeats": 3, "axis": -2}, name="middle",
         ref=lambda x, repeats, axis: np.repeat(x, 3, -2)),
    Case("depth_to_space", [(1, 8, 2, 2)], attrs={"block_size": 2}, ref=_d2s_ref),
    Case("space_to_depth", [(1, 2, 4, 2)], attrs={"block_size": 2}, ref=_s2d_ref),
    # slicing
    Case("slice", [(3, 4)], attrs={"begin": (0, 1), "end": (2, None)}, ref=_slice_ref),
    Case("slice", [(3, 4, 2)], attrs={"begin": (1,), "end": (3,)}, ref=_slice_ref, name="leading_axes"),
    Case("slice", [(3, 4)], attrs={"begin": (None, None), "end": (None, None), "step": (-1, 2)}, ref=_slice_ref,
         name="negative_step"),
    Case("slice", [(3, 5)], attrs={"begin": (-1, 4), "end": (-3, 0), "step": (-1, -2)}, ref=_slice_ref,
         name="negative_bounds"),
    # MXNet clamps begin/end to the axis and gives empty axes for empty ranges, as Python slices do
    Case("slice", [(3, 5)], attrs={"begin": (-100, 1), "end": (100, 100)}, ref=_slice_ref, name="clamped"),
    Case("slice", [(5, 2)], attrs={"begin": (4,), "end": (-100,), "step": (-1,)}, ref=_slice_ref,
         name="clamped_reverse"),
    Case("slice", [(5, 2)], attrs={"begin": (7, None), "end": (9, None)}, ref=_slice_ref, name="empty_past_end"),
    Case("slice", [(4, 3)], attrs={"begin": (1, 3), "end": (3, 1)}, ref=_slice_ref, name="empty_backwards"),
    Case("_slice_assign", [(5,), (2,)], attrs={"begin": (3,), "end": (100,)}, ref=_slice_assign_ref,
         name="clamped"),
    Case("_slice_assign", [(3, 4), (2, 2)], attrs={"begin": (0, 1), "end": (2, 3)}, ref=_slice_assign_ref),
    Case("_slice_assign", [(3, 4), (3, 2)], attrs={"begin": (None, None), "end": (None, None), "step": (-1, 2)},
         ref=_slice_assign_ref, name="steps"),
    Case("_slice_assign_scalar", [(3, 4)], attrs={"scalar": 2.5, "begin": (1,), "end": (3,)},
         ref=lambda x, scalar, begin, end: _slice_assign_ref(x, scalar, begin, end)),
    Case("slice_axis", [(3, 4)], attrs={"axis": 1, "begin": 1, "end": None}, ref=lambda x, **kw: x[:, 1:]),
    Case("slice_axis", [(3, 4)], attrs={"axis": 0, "begin": -2, "end": -1}, ref=lambda x, **kw: x[-2:-1],
         name="negative"),
    Case("slice_like", [(3, 4), (2, 3)], grad=(0,), ref=lambda x, like: x[:2, :3]),
    Case("slice_like", [(3, 4), (1, 2)], attrs={"axes": (1,)}, grad=(0,), ref=lambda x, like, axes: x[:, :2],
         name="axes"),
    # broadcasting
    Case("broadcast_to", [(1, 3)], attrs={"shape": (2, 3)}, ref=lambda x, shape: np.broadcast_to(x, shape)),
    Case("broadcast_to", [(2, 1)], attrs={"shape": (0, 3)}, ref=lambda x, shape: np.broadcast_to(x, (2, 3)),
         name="zero_keeps"),
    Case("_npi_broadcast_to", [(3, 1)], attrs={"shape": (2, 3, 4)}, ref=lambda x, shape: np.broadcast_to(x, shape)),
    Case("_npi_broadcast_to", [(1, 3)], attrs={"shape": (2, -2)}, ref=lambda x, shape: np.broadcast_to(x, (2, 3)),
         name="keep"),
    Case("_npi_broadcast_to", [(1, 1)], attrs={"shape": (2, 4, 0)}, ref=lambda x, shape: np.broadcast_to(x, shape),
         name="zero_size"),
    Case("broadcast_like", [(1, 3), (2, 3)], grad=(0,), ref=lambda l, r: np.broadcast_to(l, r.shape)),
    Case("broadcast_like", [(1, 3), (4, 2)], attrs={"lhs_axes": (0,), "rhs_axes": (1,)}, grad=(0,), name="axes",
         ref=lambda l, r, **kw: np.broadcast_to(l, (2, 3))),
    Case("broadcast_axis", [(1, 3, 1)], attrs={"axis": (0, 2), "size": (2, 2)},
         ref=lambda x, axis, size: np.broadcast_to(x, (2, 3, 2))),
    Case("reverse", [(3, 4)], attrs={"axis": (0,)}, ref=lambda x, axis: x[::-1]),
    Case("reverse", [(2, 3)], attrs={"axis": (0, 1)}, ref=lambda x, axis: x[::-1, ::-1], name="two_axes"),
    Case("Pad", [(1, 1, 2, 3)], attrs={"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1),
                                       "constant_value": 0.5}, ref=_pad_ref, name="constant"),
    Case("Pad", [(1, 1, 2, 3)], attrs={"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3)}, ref=_pad_ref,
         name="edge"),
    Case("Pad", [(1, 1, 3, 3)], attrs={"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)}, ref=_pad_ref,
         name="reflect"),
    Case("_backward_Pad", [(1, 1, 5, 6)], attrs={"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)},
         ref=_pad_backward_ref, name="constant"),
    Case("_backward_Pad", [(1, 1, 5, 6)], attrs={"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3)},
         ref=_pad_backward_ref, name="edge"),
    Case("_backward_Pad", [(1, 1, 6, 6)], attrs={"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)},
         ref=_pad_backward_ref, name="reflect"),
]
CASES += [
    Case("_np_flip", [(2, 3)], ref=lambda x: x[::-1, ::-1], name="all"),
    Case("_np_flip", [(2, 3)], attrs={"axis": 1}, ref=lambda x, axis: x[:, ::-1]),
]
