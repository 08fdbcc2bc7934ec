"""The ops of predict programs' layout plan (``compiler/passes/layout.py``): ``_LayoutReorder``,
``_ChannelAffine`` and ``_FusedConvolution`` reading and writing channel-blocked values, against
NumPy references that block with explicit loops over the channels."""
import numpy as np

from op_cases.conv import ref_fused_conv
from op_cases.pool import ref_pool
from op_checker import Case


def blocked(x, b):
    """``x`` (plain, channel-first) with its elements in the order of the layout blocked by ``b``."""
    if not b:
        return x
    out = np.empty(x.size, x.dtype)
    n, c, sp = x.shape[0], x.shape[1], x.shape[2:]
    k = 0
    for i in range(n):
        for outer in range(c // b):
            block = x[i, outer * b:(outer + 1) * b]            # (b, *sp)
            for pos in np.ndindex(*sp):
                out[k:k + b] = block[(slice(None),) + pos]
                k += b
    return out.reshape(x.shape)


def plain(x, b):
    """The inverse of :func:`blocked`."""
    if not b:
        return x
    out = np.empty_like(x)
    flat = x.reshape(-1)
    n, c, sp = x.shape[0], x.shape[1], x.shape[2:]
    k = 0
    for i in range(n):
        for outer in range(c // b):
            for pos in np.ndindex(*sp):
                out[(i, slice(outer * b, (outer + 1) * b)) + pos] = flat[k:k + b]
                k += b
    return out


def ref_reorder(x, from_block=0, to_block=0):
    return blocked(plain(x, from_block), to_block)


def ref_affine(x, scale, shift, axis=1, act_type=None, block=0):
    x = plain(x, block)
    shape = [1] * x.ndim
    shape[axis] = -1
    out = x * scale.reshape(shape) + shift.reshape(shape)
    return blocked(np.maximum(out, 0) if act_type == "relu" else out, block)


def ref_blocked_conv(x, *rest, in_block=0, out_block=0, **attrs):
    return blocked(ref_fused_conv(plain(x, in_block), *rest, **attrs), out_block)


def ref_blocked_pool(x, block=0, **attrs):
    return blocked(ref_pool(plain(x, block), **attrs), block)


CASES = [
    Case("_LayoutReorder", [(2, 16, 3, 5)], ref=ref_reorder, attrs={"to_block": 8}, grad=(), name="to_block8"),
    Case("_LayoutReorder", [(2, 16, 3, 5)], ref=ref_reorder, attrs={"from_block": 8}, grad=(), name="to_plain"),
    Case("_LayoutReorder", [(1, 16, 2, 2, 3)], ref=ref_reorder, attrs={"from_block": 8, "to_block": 16}, grad=(),
         name="3d_block8_to_16"),
    Case("_LayoutReorder", [(2, 8, 7)], ref=ref_reorder, attrs={"to_block": 8}, grad=(), name="1d"),
    Case("_ChannelAffine", [(2, 5, 3, 4), (5,), (5,)], ref=ref_affine, grad=(), name="plain"),
    Case("_ChannelAffine", [(2, 16, 3, 3), (16,), (16,)], ref=ref_affine, attrs={"act_type": "relu", "block": 8},
         grad=(), name="blocked_relu"),
    Case("_ChannelAffine", [(3, 4), (4,), (4,)], ref=ref_affine, attrs={"act_type": "relu"}, grad=(), name="2d_relu"),
    Case("_ChannelAffine", [(2, 64, 1, 1), (64,), (64,)], ref=ref_affine, attrs={"act_type": "relu"}, grad=(),
         name="batch_of_1x1_maps"),
    Case("_ChannelAffine", [(3, 16, 1), (16,), (16,)], ref=ref_affine, grad=(), name="batch_of_1_wide_maps"),
    Case("_ChannelAffine", [(2, 3, 4), (4,), (4,)], ref=ref_affine, attrs={"axis": 2}, grad=(), name="last_axis"),
    Case("_ChannelAffine", [(1, 8, 2, 2, 2), (8,), (8,)], ref=ref_affine, attrs={"block": 8}, grad=(),
         name="3d_blocked"),
    Case("_FusedConvolution", [(1, 8, 5, 5), (16, 8, 3, 3), (16,), (16,)], ref=ref_blocked_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 16, "pad": (1, 1), "no_bias": True, "affine": True,
                "act_type": "relu", "in_block": 8, "out_block": 8}, name="blocked_in_out_affine_relu"),
    Case("_FusedConvolution", [(2, 3, 6, 6), (8, 3, 3, 3), (8,)], ref=ref_blocked_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 8, "stride": (2, 2), "out_block": 8}, name="plain_in_blocked_out"),
    Case("_FusedConvolution", [(1, 16, 4, 4), (5, 16, 1, 1)], ref=ref_blocked_conv, grad=(),
         attrs={"kernel": (1, 1), "num_filter": 5, "no_bias": True, "gemm": True, "in_block": 8},
         name="1x1_blocked_in_plain_out"),
    Case("_FusedConvolution", [(2, 16, 5, 5), (16, 2, 3, 3)], ref=ref_blocked_conv, grad=(),
         attrs={"kernel": (3, 3), "num_filter": 16, "num_group": 8, "pad": (1, 1), "no_bias": True,
                "in_block": 8, "out_block": 8}, name="grouped_blocked"),
    Case("_BlockedPooling", [(2, 16, 6, 6)], ref=ref_blocked_pool, grad=(),
         attrs={"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max", "block": 8}, name="max"),
    Case("_BlockedPooling", [(1, 8, 5, 5)], ref=ref_blocked_pool, grad=(),
         attrs={"kernel": (2, 2), "stride": (2, 2), "pool_type": "max", "pooling_convention": "full", "block": 8},
         name="max_full"),
    Case("_BlockedPooling", [(2, 16, 5, 5)], ref=ref_blocked_pool, grad=(),
         attrs={"kernel": (3, 3), "stride": (1, 1), "pad": (1, 1), "pool_type": "avg", "block": 8}, name="avg"),
    Case("_BlockedPooling", [(1, 8, 5, 5)], ref=ref_blocked_pool, grad=(),
         attrs={"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "avg", "count_include_pad": False,
                "block": 8}, name="avg_exclude_pad"),
    Case("_BlockedPooling", [(2, 16, 3, 3)], ref=ref_blocked_pool, grad=(),
         attrs={"global_pool": True, "pool_type": "avg", "block": 16}, name="global_avg"),
    Case("_BlockedPooling", [(1, 8, 2, 3, 3)], ref=ref_blocked_pool, grad=(),
         attrs={"kernel": (2, 2, 2), "pool_type": "max", "block": 8}, name="3d_max"),
]
