"""Pooling and its internal backward ops against plain NumPy loop references (MXNet's pool.h rules)."""
import math

import numpy as np

from op_checker import Case


def _windows(x_shape, kernel, pool_type, global_pool, pooling_convention, stride, pad):
    """Yield (out index, clipped window slices, window size counting padding) per output position."""
    sp = x_shape[2:]
    nd = len(sp)
    if global_pool:
        kernel, stride, pad = sp, (1,) * nd, (0,) * nd
    stride = tuple(stride) or (1,) * nd
    pad = tuple(pad) or (0,) * nd
    out = []
    for i in range(nd):
        if global_pool:
            out.append(1)
        elif pooling_convention == "valid":
            out.append((sp[i] + 2 * pad[i] - kernel[i]) // stride[i] + 1)
        elif pooling_convention == "full":
            out.append(1 + math.ceil((sp[i] + 2 * pad[i] - kernel[i]) / stride[i]))
        else:
            out.append(math.ceil((sp[i] + 2 * pad[i]) / stride[i]))
    for o in np.ndindex(*out):
        start = [o[i] * stride[i] - pad[i] for i in range(nd)]
        end = [min(start[i] + kernel[i], sp[i] + pad[i]) for i in range(nd)]
        size = int(np.prod([end[i] - start[i] for i in range(nd)]))
        sl = tuple(slice(max(start[i], 0), min(end[i], sp[i])) for i in range(nd))
        yield out, o, sl, size


def _cf(x, layout):
    return np.moveaxis(x, -1, 1) if layout is not None and layout[-1] == "C" else x


def ref_pool(x, *, kernel=(), pool_type="max", global_pool=False, pooling_convention="valid", stride=(), pad=(),
             p_value=None, count_include_pad=None, layout=None, **_):
    x = _cf(x, layout).astype(np.float64)
    result = None
    for out, o, sl, size in _windows(x.shape, kernel, pool_type, global_pool, pooling_convention, stride, pad):
        if result is None:
            result = np.zeros(x.shape[:2] + tuple(out))
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                win = x[(n, c) + sl]
                if pool_type == "max":
                    v = win.max()
                elif pool_type == "sum" or (pool_type == "lp" and p_value == 1):
                    v = win.sum()
                elif pool_type == "avg":
                    v = win.sum() / (size if count_include_pad is not False else win.size)
                elif p_value == 2:
                    v = np.sqrt((win ** 2).sum())
                else:
                    v = np.cbrt((win ** 3).sum())
                result[(n, c) + o] = v
    return np.moveaxis(result, 1, -1) if layout is not None and layout[-1] == "C" else result


def ref_pool_backward(og, x, y, *, kernel=(), pool_type="max", global_pool=False, pooling_convention="valid",
                      stride=(), pad=(), p_value=None, count_include_pad=None, layout=None, **_):
    og, x, y = (_cf(v, layout).astype(np.float64) for v in (og, x, y))
    grad = np.zeros_like(x)
    for _, o, sl, size in _windows(x.shape, kernel, pool_type, global_pool, pooling_convention, stride, pad):
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                g, win, gwin = og[(n, c) + o], x[(n, c) + sl], grad[(n, c) + sl]
                if pool_type == "max":
                    gwin[np.unravel_index(np.argmax(win), win.shape)] += g
                elif pool_type == "sum" or (pool_type == "lp" and p_value == 1):
                    gwin += g
                elif pool_type == "avg":
                    gwin += g / (size if count_include_pad is not False else win.size)
                else:
                    out = y[(n, c) + o]
                    gwin += 0.0 if out == 0 else g * (win / out) ** (p_value - 1)
    return np.moveaxis(grad, 1, -1) if layout is not None and layout[-1] == "C" else grad


def ref_pool_gather(g, x, *, kernel=(), pool_type="max", global_pool=False, pooling_convention="valid",
                    stride=(), pad=(), layout=None, **_):
    g, x = _cf(g, layout), _cf(x, layout)
    result = None
    for out, o, sl, _ in _windows(x.shape, kernel, pool_type, global_pool, pooling_convention, stride, pad):
        if result is None:
            result = np.zeros(x.shape[:2] + tuple(out))
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                win = x[(n, c) + sl]
                result[(n, c) + o] = g[(n, c) + sl][np.unravel_index(np.argmax(win), win.shape)]
    return np.moveaxis(result, 1, -1) if layout is not None and layout[-1] == "C" else result


def _positive(shape):
    return lambda rng: rng.uniform(0.5, 1.5, shape)


def _P(attrs, shape=(1, 2, 4, 5), name="", inputs=None):
    return Case("Pooling", inputs or [shape], ref=ref_pool, attrs=attrs, name=name)


def _B(attrs, data_shape, out_shape, name, positive=False):
    data = _positive(data_shape) if positive else data_shape
    out = _positive(out_shape) if positive else out_shape
    return Case("_backward_Pooling", [out_shape, data, out], ref=ref_pool_backward, attrs=attrs, name=name)


CASES = [
    _P({"kernel": (2, 2), "stride": (2, 2)}, name="max_default"),
    _P({"kernel": (2, 3), "pool_type": "max", "stride": (1, 2)}, name="max_overlap"),
    _P({"kernel": (3, 3), "pool_type": "max", "stride": (2, 2), "pad": (1, 1), "pooling_convention": "full"},
       name="max_pad_full"),
    _P({"kernel": (2, 2), "pool_type": "avg", "stride": (2, 2)}, name="avg_valid"),
    _P({"kernel": (3, 3), "pool_type": "avg", "pad": (1, 1), "stride": (2, 2)}, name="avg_pad_include"),
    _P({"kernel": (3, 3), "pool_type": "avg", "pad": (1, 1), "stride": (2, 2), "count_include_pad": False},
       name="avg_pad_exclude"),
    _P({"kernel": (2, 2), "pool_type": "avg", "stride": (2, 2), "pooling_convention": "full"}, name="avg_full"),
    _P({"kernel": (2, 2), "pool_type": "sum", "stride": (1, 2), "pad": (0, 1)}, name="sum"),
    _P({"kernel": (2, 2), "pool_type": "lp", "p_value": 1, "stride": (2, 2)}, name="lp1"),
    _P({"kernel": (2, 2), "pool_type": "lp", "p_value": 2, "stride": (2, 1)}, name="lp2"),
    _P({"kernel": (2, 2), "pool_type": "lp", "p_value": 3, "stride": (2, 2), "pad": (1, 0)}, name="lp3",
       inputs=[_positive((1, 2, 4, 5))]),
    _P({"global_pool": True}, name="global_max"),
    _P({"global_pool": True, "pool_type": "avg", "kernel": (1, 1)}, name="global_avg"),
    _P({"global_pool": True, "pool_type": "sum"}, shape=(2, 3, 5), name="global_sum_1d"),
    _P({"global_pool": True, "pool_type": "lp", "p_value": 2}, shape=(1, 2, 2, 2, 3), name="global_lp2_3d"),
    _P({"kernel": (3,), "stride": (2,)}, shape=(2, 2, 7), name="1d_max"),
    _P({"kernel": (3,), "stride": (2,), "pooling_convention": "same"}, shape=(2, 2, 8), name="1d_same"),
    _P({"kernel": (3,), "stride": (1,), "pool_type": "avg", "pooling_convention": "same"}, shape=(1, 2, 6),
       name="1d_same_avg"),
    _P({"kernel": (2,), "pool_type": "avg", "pad": (1,), "count_include_pad": False}, shape=(2, 2, 5),
       name="1d_avg_exclude"),
    _P({"kernel": (2, 2, 2), "stride": (1, 2, 1)}, shape=(1, 1, 3, 4, 3), name="3d_max"),
    _P({"kernel": (2, 2, 2), "pool_type": "avg", "pad": (1, 0, 1), "pooling_convention": "full", "stride": (2, 2, 2)},
       shape=(1, 1, 3, 4, 3), name="3d_avg_full"),
    _P({"kernel": (2, 2), "pool_type": "avg", "stride": (2, 2), "layout": "NHWC"}, shape=(1, 4, 4, 2),
       name="nhwc_avg"),
    _P({"kernel": (2,), "layout": "NWC"}, shape=(2, 5, 3), name="nwc_max"),
    _P({"global_pool": True, "layout": "NHWC"}, shape=(1, 3, 4, 2), name="nhwc_global_max"),
    # internal backward ops (inputs: ograd, data, output)
    _B({"kernel": (2, 2), "stride": (1, 1)}, (1, 2, 4, 4), (1, 2, 3, 3), "max"),
    _B({"kernel": (2, 2), "stride": (2, 2)}, (2, 2, 4, 5), (2, 2, 2, 2), "max_disjoint"),
    _B({"kernel": (2, 2), "stride": (2, 2)}, (2, 3, 4, 6), (2, 3, 2, 3), "max_2x2_tiling"),
    _B({"kernel": (2, 1), "stride": (3, 2), "pad": (1, 0)}, (1, 2, 5, 5), (1, 2, 2, 3), "max_disjoint_gaps_pad"),
    # ties (as after relu): the first maximum in row-major order takes the gradient; the data-side
    # gradient is undefined at ties, so only ograd's is checked numerically
    Case("_backward_Pooling", [(1, 2, 3, 3), lambda rng: np.round(rng.uniform(0, 2, (1, 2, 6, 6))), (1, 2, 3, 3)],
         ref=ref_pool_backward, attrs={"kernel": (2, 2), "stride": (2, 2)}, grad=[0], name="max_ties_disjoint"),
    Case("_backward_Pooling", [(1, 2, 5, 5), lambda rng: np.round(rng.uniform(0, 2, (1, 2, 6, 6))), (1, 2, 5, 5)],
         ref=ref_pool_backward, attrs={"kernel": (2, 2), "stride": (1, 1)}, grad=[0], name="max_ties_overlap"),
    Case("_backward_Pooling", [(2, 2, 3), lambda rng: np.round(rng.uniform(0, 2, (2, 2, 7))), (2, 2, 3)],
         ref=ref_pool_backward, attrs={"kernel": (2,), "stride": (2,)}, grad=[0], name="max_ties_disjoint_1d"),
    Case("_backward_Pooling", [(1, 1, 2, 2, 2), lambda rng: np.round(rng.uniform(0, 2, (1, 1, 4, 5, 4))),
                               (1, 1, 2, 2, 2)],
         ref=ref_pool_backward, attrs={"kernel": (2, 2, 2), "stride": (2, 2, 2)}, grad=[0],
         name="max_ties_disjoint_3d"),
    _B({"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pooling_convention": "full"}, (1, 2, 4, 5),
       (1, 2, 3, 3), "max_pad_full"),
    _B({"kernel": (3, 3), "pool_type": "avg", "pad": (1, 1), "stride": (2, 2), "count_include_pad": False},
       (1, 2, 4, 5), (1, 2, 2, 3), "avg_exclude"),
    _B({"kernel": (2, 2), "pool_type": "avg", "stride": (2, 2), "pooling_convention": "full"}, (1, 2, 4, 5),
       (1, 2, 2, 3), "avg_full"),
    _B({"kernel": (2,), "pool_type": "sum", "pad": (1,)}, (2, 2, 5), (2, 2, 6), "sum_1d"),
    _B({"kernel": (2, 2), "pool_type": "lp", "p_value": 1}, (1, 1, 3, 3), (1, 1, 2, 2), "lp1"),
    _B({"kernel": (2, 2), "pool_type": "lp", "p_value": 2}, (1, 2, 3, 3), (1, 2, 2, 2), "lp2", positive=True),
    _B({"kernel": (2, 2), "pool_type": "lp", "p_value": 3, "stride": (1, 2)}, (1, 2, 3, 4), (1, 2, 2, 2), "lp3",
       positive=True),
    _B({"global_pool": True, "pool_type": "avg", "layout": "NWC"}, (2, 4, 3), (2, 1, 3), "global_avg_nwc"),
    Case("_backward_Pooling_gather", [(1, 2, 4, 5), (1, 2, 4, 5)], ref=ref_pool_gather,
         attrs={"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pooling_convention": "full"}, name="max"),
    Case("_backward_Pooling_gather", [(2, 2, 6), (2, 2, 6)], ref=ref_pool_gather,
         attrs={"kernel": (3,), "stride": (1,), "layout": "NCW"}, name="max_1d"),
]
