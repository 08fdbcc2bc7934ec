"""Convolution, Deconvolution and the weight-gradient ops against plain NumPy loop references."""
from dataclasses import replace

import numpy as np

import hybridlab as mx
from hybridlab.ndarray.dispatch import op_context
from hybridlab.ops.registry import get_op
from op_checker import Case


def _geom(nd, stride, dilate, pad):
    return (tuple(stride) or (1,) * nd, tuple(dilate) or (1,) * nd, tuple(pad) or (0,) * nd)


def _channel_last(layout):
    return layout is not None and layout[-1] == "C"


def ref_conv(x, w, b=None, *, kernel, num_filter, stride=(), dilate=(), pad=(), num_group=1, no_bias=False,
             layout=None, **_):
    nd = len(kernel)
    s, d, p = _geom(nd, stride, dilate, pad)
    cl = _channel_last(layout)
    if cl:
        x, w = np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1)
    n_batch, channels = x.shape[:2]
    cg, fg = channels // num_group, num_filter // num_group
    xpad = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(q, q) for q in p])
    out_sp = [(xpad.shape[2 + i] - d[i] * (kernel[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    out = np.zeros((n_batch, num_filter, *out_sp))
    for n in range(n_batch):
        for f in range(num_filter):
            group = f // fg
            for o in np.ndindex(*out_sp):
                acc = 0.0
                for c in range(cg):
                    for kk in np.ndindex(*kernel):
                        pos = tuple(o[i] * s[i] + kk[i] * d[i] for i in range(nd))
                        acc += xpad[(n, group * cg + c) + pos] * w[(f, c) + kk]
                out[(n, f) + o] = acc + (b[f] if b is not None and not no_bias else 0.0)
    return np.moveaxis(out, 1, -1) if cl else out


def ref_deconv(x, w, b=None, *, kernel, num_filter, stride=(), dilate=(), pad=(), adj=(), target_shape=(),
               num_group=1, no_bias=True, layout=None, **_):
    nd = len(kernel)
    s, d, p = _geom(nd, stride, dilate, pad)
    a = tuple(adj) or (0,) * nd
    cl = _channel_last(layout)
    if cl:
        x, w = np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1)
    n_batch, channels = x.shape[:2]
    in_sp = x.shape[2:]
    if target_shape:
        p, a = [], []
        for i in range(nd):
            total = s[i] * (in_sp[i] - 1) + d[i] * (kernel[i] - 1) + 1 - target_shape[i]
            p.append((total + 1) // 2)
            a.append(total % 2)
    cg, fg = channels // num_group, num_filter // num_group
    full = [s[i] * (in_sp[i] - 1) + d[i] * (kernel[i] - 1) + 1 + a[i] for i in range(nd)]
    out = np.zeros((n_batch, num_filter, *full))
    for n in range(n_batch):
        for c in range(channels):
            group = c // cg
            for i_pos in np.ndindex(*in_sp):
                for fl in range(fg):
                    for kk in np.ndindex(*kernel):
                        pos = tuple(i_pos[i] * s[i] + kk[i] * d[i] for i in range(nd))
                        out[(n, group * fg + fl) + pos] += x[(n, c) + i_pos] * w[(c, fl) + kk]
    out = out[(slice(None), slice(None)) + tuple(slice(p[i], full[i] - p[i]) for i in range(nd))]
    if b is not None and not no_bias:
        out = out + b.reshape((1, -1) + (1,) * nd)
    return np.moveaxis(out, 1, -1) if cl else out


def ref_conv_weight_grad(og, x, *, kernel, num_filter, stride=(), dilate=(), pad=(), num_group=1,
                         layout=None, **_):
    nd = len(kernel)
    s, d, p = _geom(nd, stride, dilate, pad)
    cl = _channel_last(layout)
    if cl:
        x, og = np.moveaxis(x, -1, 1), np.moveaxis(og, -1, 1)
    n_batch, channels = x.shape[:2]
    cg, fg = channels // num_group, num_filter // num_group
    xpad = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(q, q) for q in p])
    dw = np.zeros((num_filter, cg, *kernel))
    for n in range(n_batch):
        for f in range(num_filter):
            for o in np.ndindex(*og.shape[2:]):
                for c in range(cg):
                    for kk in np.ndindex(*kernel):
                        pos = tuple(o[i] * s[i] + kk[i] * d[i] for i in range(nd))
                        dw[(f, c) + kk] += og[(n, f) + o] * xpad[(n, (f // fg) * cg + c) + pos]
    return np.moveaxis(dw, 1, -1) if cl else dw


CASES = [
    # Convolution
    Case("Convolution", [(1, 2, 5, 5), (3, 2, 3, 3), (3,)], ref=ref_conv,
         attrs={"kernel": (3, 3), "num_filter": 3}, name="2d_bias"),
    Case("Convolution", [(1, 2, 5, 5), (2, 2, 3, 3)], ref=ref_conv,
         attrs={"kernel": (3, 3), "num_filter": 2, "stride": (2, 2), "pad": (1, 1), "no_bias": True},
         name="2d_stride_pad"),
    Case("Convolution", [(1, 1, 6, 6), (2, 1, 2, 2), (2,)], ref=ref_conv,
         attrs={"kernel": (2, 2), "num_filter": 2, "dilate": (2, 3), "pad": (1, 0), "stride": (1, 2)},
         name="2d_dilate"),
    Case("Convolution", [(1, 4, 3, 3), (4, 2, 2, 2), (4,)], ref=ref_conv,
         attrs={"kernel": (2, 2), "num_filter": 4, "num_group": 2}, name="2d_groups"),
    Case("Convolution", [(1, 2, 4, 4), (2, 1, 3, 3)], ref=ref_conv,
         attrs={"kernel": (3, 3), "num_filter": 2, "num_group": 2, "pad": (1, 1), "no_bias": True},
         name="2d_depthwise"),
    Case("Convolution", [(2, 2, 7), (3, 2, 3), (3,)], ref=ref_conv,
         attrs={"kernel": (3,), "num_filter": 3, "stride": (2,), "pad": (1,)}, name="1d"),
    Case("Convolution", [(1, 2, 8), (4, 1, 2)], ref=ref_conv,
         attrs={"kernel": (2,), "num_filter": 4, "dilate": (3,), "num_group": 2, "no_bias": True,
                "layout": "NCW"}, name="1d_dilate_groups"),
    Case("Convolution", [(1, 1, 3, 3, 4), (2, 1, 2, 2, 2), (2,)], ref=ref_conv,
         attrs={"kernel": (2, 2, 2), "num_filter": 2, "pad": (0, 1, 0), "stride": (1, 2, 2)}, name="3d"),
    Case("Convolution", [(1, 4, 4, 2), (3, 2, 2, 2), (3,)], ref=ref_conv,
         attrs={"kernel": (2, 2), "num_filter": 3, "layout": "NHWC", "stride": (2, 1)}, name="nhwc"),
    # stride 1 with rows barely wider than the output: the columns cover full rows (conv._grid)
    Case("Convolution", [(2, 4, 8, 7), (4, 2, 3, 2), (4,)], ref=ref_conv,
         attrs={"kernel": (3, 2), "num_filter": 4, "num_group": 2, "dilate": (1, 2), "pad": (1, 1)},
         name="2d_full_rows"),
    Case("Convolution", [(1, 2, 4, 6, 6), (3, 2, 2, 2, 2), (3,)], ref=ref_conv,
         attrs={"kernel": (2, 2, 2), "num_filter": 3}, name="3d_full_rows"),
    Case("Convolution", [(1, 7, 8, 3), (2, 2, 2, 3)], ref=ref_conv,
         attrs={"kernel": (2, 2), "num_filter": 2, "layout": "NHWC", "no_bias": True}, name="nhwc_full_rows"),
    # Deconvolution
    Case("Deconvolution", [(1, 2, 3, 3), (2, 2, 3, 3)], ref=ref_deconv,
         attrs={"kernel": (3, 3), "num_filter": 2}, name="2d"),
    Case("Deconvolution", [(1, 2, 3, 3), (2, 2, 3, 3), (2,)], ref=ref_deconv,
         attrs={"kernel": (3, 3), "num_filter": 2, "stride": (2, 2), "pad": (1, 1), "adj": (1, 0),
                "no_bias": False}, name="2d_stride_pad_adj_bias"),
    Case("Deconvolution", [(1, 2, 3, 3), (2, 1, 3, 3)], ref=ref_deconv,
         attrs={"kernel": (3, 3), "num_filter": 1, "stride": (2, 2), "target_shape": (6, 5)},
         name="2d_target_shape"),
    Case("Deconvolution", [(1, 4, 3, 3), (4, 1, 2, 2)], ref=ref_deconv,
         attrs={"kernel": (2, 2), "num_filter": 2, "num_group": 2, "dilate": (2, 2), "pad": (1, 0)},
         name="2d_groups_dilate"),
    Case("Deconvolution", [(1, 2, 5), (2, 3, 3), (3,)], ref=ref_deconv,
         attrs={"kernel": (3,), "num_filter": 3, "stride": (2,), "pad": (1,), "adj": (1,), "no_bias": False},
         name="1d"),
    Case("Deconvolution", [(1, 2, 2, 2, 2), (2, 1, 2, 2, 2)], ref=ref_deconv,
         attrs={"kernel": (2, 2, 2), "num_filter": 1, "stride": (2, 1, 2)}, name="3d"),
    Case("Deconvolution", [(1, 3, 3, 2), (2, 2, 2, 3)], ref=ref_deconv,
         attrs={"kernel": (2, 2), "num_filter": 3, "stride": (2, 2), "layout": "NHWC"}, name="nhwc"),
    Case("Deconvolution", [(2, 4, 6, 7), (4, 3, 3, 2), (6,)], ref=ref_deconv,
         attrs={"kernel": (3, 2), "num_filter": 6, "num_group": 2, "dilate": (1, 2), "pad": (1, 0),
                "no_bias": False}, name="2d_full_rows"),
    Case("Deconvolution", [(1, 2, 3, 5, 5), (2, 1, 2, 2, 2)], ref=ref_deconv,
         attrs={"kernel": (2, 2, 2), "num_filter": 1}, name="3d_full_rows"),
    # weight gradient (internal)
    Case("_backward_Convolution_weight", [(1, 4, 3, 3), (1, 2, 5, 5)], ref=ref_conv_weight_grad,
         attrs={"kernel": (3, 3), "num_filter": 4, "stride": (2, 2), "pad": (1, 1), "dilate": (1, 1)},
         name="2d"),
    Case("_backward_Convolution_weight", [(1, 4, 2, 2), (1, 4, 3, 3)], ref=ref_conv_weight_grad,
         attrs={"kernel": (2, 2), "num_filter": 4, "num_group": 2, "no_bias": True}, name="2d_groups"),
    Case("_backward_Convolution_weight", [(2, 2, 3), (2, 2, 7)], ref=ref_conv_weight_grad,
         attrs={"kernel": (3,), "num_filter": 2, "dilate": (2,), "stride": (1,)}, name="1d_dilate"),
    Case("_backward_Convolution_weight", [(1, 3, 2, 2), (1, 4, 4, 2)], ref=ref_conv_weight_grad,
         attrs={"kernel": (2, 3), "num_filter": 2, "layout": "NHWC"}, name="nhwc"),
    Case("_backward_Convolution_weight", [(2, 4, 8, 7), (2, 4, 8, 7)], ref=ref_conv_weight_grad,
         attrs={"kernel": (3, 2), "num_filter": 4, "num_group": 2, "dilate": (1, 2), "pad": (1, 1)},
         name="2d_full_rows"),
    Case("_backward_Convolution_weight", [(1, 3, 3, 5, 5), (1, 2, 4, 6, 6)], ref=ref_conv_weight_grad,
         attrs={"kernel": (2, 2, 2), "num_filter": 3}, name="3d_full_rows"),
    # filters per group: 1 and >= 8 take one batched product, 2 to 7 one product per filter on the CPU
    Case("_backward_Convolution_weight", [(2, 9, 3, 3), (2, 2, 5, 5)], ref=ref_conv_weight_grad,
         attrs={"kernel": (3, 3), "num_filter": 9}, name="2d_nine_filters"),
    Case("_backward_Convolution_weight", [(2, 3, 3, 3), (2, 3, 4, 4)], ref=ref_conv_weight_grad,
         attrs={"kernel": (2, 2), "num_filter": 3, "num_group": 3}, name="2d_depthwise"),
]


# ---- the columns variant (compiled training programs; see ops/conv_columns.py) --------------------
CASES += [replace(c, op="_Convolution_columns") for c in CASES
          if c.op == "Convolution" and c.name in ("2d_stride_pad", "2d_groups", "1d", "nhwc", "2d_full_rows",
                                                  "3d_full_rows", "nhwc_full_rows")]


def _columns_of(data, attrs):
    """The column matrix ``_Convolution_columns`` builds for ``data`` (a fixed array): the input the
    weight-gradient op is documented to take."""
    op = get_op("_Convolution_columns")
    a = op.parse_attrs({**{k: str(v) for k, v in attrs.items()}, "no_bias": "True"})
    shapes = [data.shape, None]
    op.infer_shape(a, shapes)                    # fills in the weight's shape
    return op.compute(op_context(mx.cpu(), True), a, data, np.zeros(shapes[1], data.dtype))[1]


def _wgrad_columns_case(name, data_shape, og_shape, attrs):
    data = np.random.default_rng(7).standard_normal(data_shape)
    return Case("_backward_Convolution_weight_columns", [og_shape, lambda rng: _columns_of(data, attrs)],
                ref=lambda og, cols, **a: ref_conv_weight_grad(og, data, **a), attrs=attrs, grad=(), name=name)


CASES += [
    _wgrad_columns_case("2d_stride_pad", (1, 2, 5, 5), (1, 4, 3, 3),
                        {"kernel": (3, 3), "num_filter": 4, "stride": (2, 2), "pad": (1, 1)}),
    _wgrad_columns_case("2d_full_rows_groups", (2, 4, 8, 7), (2, 4, 8, 7),
                        {"kernel": (3, 2), "num_filter": 4, "num_group": 2, "dilate": (1, 2), "pad": (1, 1)}),
    _wgrad_columns_case("nhwc_full_rows", (1, 7, 8, 3), (1, 6, 7, 2),
                        {"kernel": (2, 2), "num_filter": 2, "layout": "NHWC"}),
    _wgrad_columns_case("3d_full_rows", (1, 2, 4, 6, 6), (1, 3, 3, 5, 5), {"kernel": (2, 2, 2), "num_filter": 3}),
    _wgrad_columns_case("1d", (2, 2, 7), (2, 3, 4), {"kernel": (3,), "num_filter": 3, "stride": (2,), "pad": (1,)}),
]


# ---- the inference form (predict programs; see ops/conv_fused.py): every epilogue on both conv paths --
def ref_fused_conv(x, w, *rest, affine=False, act_type=None, gemm=False, no_bias=False, layout=None, **a):
    out = ref_conv(x, w, None if no_bias else rest[0], no_bias=no_bias, layout=layout, **a)
    if affine:
        shape = (1,) * (out.ndim - 1) + (-1,) if _channel_last(layout) else (1, -1) + (1,) * (out.ndim - 2)
        out = out * rest[-2].reshape(shape) + rest[-1].reshape(shape)
    return np.maximum(out, 0) if act_type == "relu" else out


CASES += [
    Case("_FusedConvolution", [(2, 3, 4, 5), (4, 3, 1, 1), (4,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (1, 1), "num_filter": 4, "gemm": True, "act_type": "relu"}, name="1x1_gemm_relu"),
    Case("_FusedConvolution", [(1, 3, 4, 5), (4, 3, 1, 1), (4,), (4,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (1, 1), "num_filter": 4, "gemm": True, "no_bias": True, "affine": True, "act_type": "relu"},
         name="1x1_gemm_batch1_affine_relu"),
    Case("_FusedConvolution", [(1, 2, 5, 5), (3, 2, 3, 3), (3,), (3,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 3, "pad": (1, 1), "no_bias": True, "affine": True},
         name="affine_scales_weights"),
    Case("_FusedConvolution", [(1, 2, 2, 2), (3, 2, 3, 3), (3,), (3,), (3,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 3, "pad": (1, 1), "affine": True, "act_type": "relu"},
         name="affine_scales_output_bias_relu"),
    Case("_FusedConvolution", [(1, 5, 4, 2), (3, 2, 2, 2), (3,), (3,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (2, 2), "num_filter": 3, "layout": "NHWC", "no_bias": True, "affine": True},
         name="affine_nhwc"),
    Case("_FusedConvolution", [(2, 4, 6, 6), (4, 2, 3, 3), (4,), (4,), (4,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 4, "num_group": 2, "stride": (2, 2), "pad": (1, 1),
                "affine": True, "act_type": "relu"}, name="grouped_strided_affine_relu"),
    Case("_FusedConvolution", [(2, 2, 7), (3, 2, 3), (3,)], ref=ref_fused_conv, grad=(),
         attrs={"kernel": (3,), "num_filter": 3, "act_type": "relu"}, name="1d_bias_relu"),
]
