"""Op-checker cases for ops/resize_adaptive.py: BilinearResize2D (sizes, scales, 'odd_scale', 'like',
'to_*' modes, both align_corners) against a per-pixel interpolation loop, AdaptiveAvgPooling2D
against a per-cell average loop, and their internal backward ops against loops of the adjoint."""
import math

import numpy as np

from op_checker import Case


def _source(o, n_in, n_out, align):
    """MXNet's source position of output index ``o`` along one axis."""
    if n_out <= 1:
        return 0.0
    if align:
        return o * (n_in - 1) / (n_out - 1)
    return max((o + 0.5) * n_in / n_out - 0.5, 0.0)


def _taps(n_in, n_out, align):
    """For every output index: [(input index, weight)] of its two neighbours."""
    taps = []
    for o in range(n_out):
        s = _source(o, n_in, n_out, align)
        i0 = int(math.floor(s))
        lam = s - i0
        taps.append([(i0, 1 - lam), (min(i0 + 1, n_in - 1), lam)])
    return taps


def _out_size(x, like, height, width, scale_height, scale_width, mode):
    h, w = x.shape[2:]
    if mode == "like":
        return like.shape[2:]
    if mode == "size":
        return (height, width) if scale_height is None else (int(h * scale_height), int(w * scale_width))
    if mode == "odd_scale":
        return tuple(int(d * s) if d % 2 == 0 else int((d - 1) * s) + 1 for d, s in ((h, scale_height), (w, scale_width)))
    even, step = mode.startswith("to_even"), (-1 if mode.endswith("down") else 1)
    return tuple(d if (d % 2 == 0) == even else d + step for d in (h, w))


def ref_resize(x, like=None, height=1, width=1, scale_height=None, scale_width=None, mode="size", align_corners=True):
    oh, ow = _out_size(x, like, height, width, scale_height, scale_width, mode)
    th, tw = _taps(x.shape[2], oh, align_corners), _taps(x.shape[3], ow, align_corners)
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            for a, wa in th[i]:
                for b, wb in tw[j]:
                    out[:, :, i, j] += wa * wb * x[:, :, a, b]
    return out


def ref_resize_backward(og, data, align_corners=True):
    oh, ow = og.shape[2:]
    th, tw = _taps(data.shape[2], oh, align_corners), _taps(data.shape[3], ow, align_corners)
    g = np.zeros(data.shape)
    for i in range(oh):
        for j in range(ow):
            for a, wa in th[i]:
                for b, wb in tw[j]:
                    g[:, :, a, b] += wa * wb * og[:, :, i, j]
    return g


def _pool_size(output_size):
    s = tuple(np.atleast_1d(output_size)) if output_size != () else ()
    return (s[0], s[0]) if len(s) == 1 else (s if len(s) == 2 else (1, 1))


def _bins(n_in, n_out):
    return [(int(math.floor(i * n_in / n_out)), int(math.ceil((i + 1) * n_in / n_out))) for i in range(n_out)]


def ref_pool(x, output_size=()):
    oh, ow = _pool_size(output_size)
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i, (h0, h1) in enumerate(_bins(x.shape[2], oh)):
        for j, (w0, w1) in enumerate(_bins(x.shape[3], ow)):
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def ref_pool_backward(og, data):
    g = np.zeros(data.shape)
    for i, (h0, h1) in enumerate(_bins(data.shape[2], og.shape[2])):
        for j, (w0, w1) in enumerate(_bins(data.shape[3], og.shape[3])):
            g[:, :, h0:h1, w0:w1] += og[:, :, i, j, None, None] / ((h1 - h0) * (w1 - w0))
    return g


R = "_contrib_BilinearResize2D"
CASES = [
    Case(R, [(2, 2, 3, 4)], attrs={"height": 4, "width": 6}, ref=ref_resize, name="up"),
    Case(R, [(1, 2, 4, 5)], attrs={"height": 3, "width": 2, "align_corners": False}, ref=ref_resize,
         name="down_no_align"),
    Case(R, [(1, 1, 3, 4)], attrs={"height": 5, "width": 7, "align_corners": False}, ref=ref_resize,
         name="up_no_align"),
    Case(R, [(1, 2, 3, 3)], attrs={"height": 1, "width": 2}, ref=ref_resize, name="size_1"),
    Case(R, [(1, 2, 4, 5)], attrs={"scale_height": 1.5, "scale_width": 0.7}, ref=ref_resize, name="scale"),
    Case(R, [(1, 1, 5, 4)], attrs={"scale_height": 2.0, "scale_width": 0.5, "mode": "odd_scale"}, ref=ref_resize,
         name="odd_scale"),
    Case(R, [(1, 2, 3, 4), (2, 1, 5, 2)], attrs={"mode": "like", "align_corners": False}, ref=ref_resize, name="like"),
    Case(R, [(1, 1, 3, 4)], attrs={"mode": "to_even_up"}, ref=ref_resize, name="to_even_up"),
    Case(R, [(1, 1, 3, 4)], attrs={"mode": "to_odd_down"}, ref=ref_resize, name="to_odd_down"),
    Case(R, [(1, 1, 5, 4)], attrs={"mode": "to_even_down"}, ref=ref_resize, name="to_even_down"),
    Case(R, [(1, 1, 3, 4)], attrs={"mode": "to_odd_up", "align_corners": False}, ref=ref_resize, name="to_odd_up"),
    Case("_backward_contrib_BilinearResize2D", [(1, 2, 4, 3), (1, 2, 3, 5)], ref=ref_resize_backward, grad=[0]),
    Case("_backward_contrib_BilinearResize2D", [(2, 1, 2, 6), (2, 1, 4, 3)], attrs={"align_corners": False},
         ref=ref_resize_backward, grad=[0], name="no_align"),
    Case("_contrib_AdaptiveAvgPooling2D", [(2, 2, 5, 7)], attrs={"output_size": (2, 3)}, ref=ref_pool),
    Case("_contrib_AdaptiveAvgPooling2D", [(1, 2, 4, 3)], attrs={"output_size": 3}, ref=ref_pool, name="int_up"),
    Case("_contrib_AdaptiveAvgPooling2D", [(1, 2, 3, 4)], ref=ref_pool, name="default_global"),
    Case("_backward_contrib_AdaptiveAvgPooling2D", [(2, 2, 2, 3), (2, 2, 5, 7)], ref=ref_pool_backward, grad=[0]),
]
