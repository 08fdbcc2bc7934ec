"""Op-checker cases for ops/spatial_sampling.py: GridGenerator (affine, warp), BilinearSampler and
SpatialTransformer against plain per-pixel loops, and the internal backward ops against loops of the
analytic derivatives (MXNet 1.9.1's rules: zero padding outside the image)."""
import numpy as np

from op_checker import Case


def _affine_grid(theta, h, w):
    out = np.zeros((theta.shape[0], 2, h, w))
    for n in range(theta.shape[0]):
        t = theta[n].reshape(2, 3)
        for i in range(h):
            for j in range(w):
                p = np.array([-1 + 2 * j / (w - 1), -1 + 2 * i / (h - 1), 1.0])
                out[n, :, i, j] = t @ p
    return out


def ref_grid(data, transform_type, target_shape=(0, 0)):
    if transform_type == "affine":
        return _affine_grid(data.astype(np.float64), *target_shape)
    n, _, h, w = data.shape
    out = np.zeros(data.shape)
    for i in range(h):
        for j in range(w):
            out[:, 0, i, j] = (data[:, 0, i, j] + j) / ((w - 1) / 2) - 1
            out[:, 1, i, j] = (data[:, 1, i, j] + i) / ((h - 1) / 2) - 1
    return out


def ref_grid_backward(og, transform_type, target_shape=(0, 0)):
    n, _, h, w = og.shape
    if transform_type == "warp":
        return np.stack([og[:, 0] * 2 / (w - 1), og[:, 1] * 2 / (h - 1)], axis=1)
    g = np.zeros((n, 2, 3))
    for i in range(h):
        for j in range(w):
            p = np.array([-1 + 2 * j / (w - 1), -1 + 2 * i / (h - 1), 1.0])
            g += og[:, :, i, j, None] * p[None, None, :]
    return g.reshape(n, 6)


def _pixel(data, n, c, y, x):
    _, _, h, w = data.shape
    return data[n, c, y, x] if 0 <= y < h and 0 <= x < w else 0.0


def _sample_loop(data, grid, og=None):
    """The sampled output, or with ``og`` the gradients (data, grid) as loops over every pixel."""
    N, C, H, W = data.shape
    ho, wo = grid.shape[2:]
    out = np.zeros((N, C, ho, wo))
    gdata, ggrid = np.zeros(data.shape), np.zeros(grid.shape)
    for n in range(N):
        for i in range(ho):
            for j in range(wo):
                x = (grid[n, 0, i, j] + 1) * (W - 1) / 2
                y = (grid[n, 1, i, j] + 1) * (H - 1) / 2
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                fx, fy = x - x0, y - y0
                for c in range(C):
                    v00, v01 = _pixel(data, n, c, y0, x0), _pixel(data, n, c, y0, x0 + 1)
                    v10, v11 = _pixel(data, n, c, y0 + 1, x0), _pixel(data, n, c, y0 + 1, x0 + 1)
                    out[n, c, i, j] = ((1 - fy) * ((1 - fx) * v00 + fx * v01) + fy * ((1 - fx) * v10 + fx * v11))
                    if og is None:
                        continue
                    g = og[n, c, i, j]
                    for dy, dx, wt in ((0, 0, (1 - fy) * (1 - fx)), (0, 1, (1 - fy) * fx),
                                       (1, 0, fy * (1 - fx)), (1, 1, fy * fx)):
                        if 0 <= y0 + dy < H and 0 <= x0 + dx < W:
                            gdata[n, c, y0 + dy, x0 + dx] += g * wt
                    ggrid[n, 0, i, j] += g * ((1 - fy) * (v01 - v00) + fy * (v11 - v10)) * (W - 1) / 2
                    ggrid[n, 1, i, j] += g * ((1 - fx) * (v10 - v00) + fx * (v11 - v01)) * (H - 1) / 2
    return out if og is None else (gdata, ggrid)


def ref_sampler(data, grid, cudnn_off=None):
    return _sample_loop(data.astype(np.float64), grid.astype(np.float64))


def ref_sampler_backward(og, data, grid, cudnn_off=None):
    return _sample_loop(data.astype(np.float64), grid.astype(np.float64), og.astype(np.float64))


def ref_st(data, loc, target_shape, transform_type, sampler_type, cudnn_off=None):
    return _sample_loop(data.astype(np.float64), _affine_grid(loc.astype(np.float64), *target_shape))


def _grid(shape, spread):
    return lambda rng: rng.uniform(-spread, spread, shape)


def _loc(n):
    return lambda rng: np.tile([0.9, 0.2, 0.1, -0.15, 1.1, -0.05], (n, 1)) + 0.2 * rng.standard_normal((n, 6))


AFFINE = {"transform_type": "affine", "target_shape": (3, 4)}
ST = {"target_shape": (3, 4), "transform_type": "affine", "sampler_type": "bilinear"}
CASES = [
    Case("GridGenerator", [(2, 6)], attrs=AFFINE, ref=ref_grid, name="affine"),
    Case("GridGenerator", [(2, 2, 3, 4)], attrs={"transform_type": "warp"}, ref=ref_grid, name="warp"),
    Case("GridGenerator", [(1, 2, 2, 3)], attrs={"transform_type": "warp", "target_shape": (5, 5)}, ref=ref_grid,
         name="warp_ignores_target_shape"),
    Case("_backward_GridGenerator", [(2, 2, 3, 4)], attrs=AFFINE, ref=ref_grid_backward, name="affine"),
    Case("_backward_GridGenerator", [(2, 2, 3, 4)], attrs={"transform_type": "warp"}, ref=ref_grid_backward,
         name="warp"),
    Case("BilinearSampler", [(2, 2, 4, 5), _grid((2, 2, 3, 3), 1.2)], ref=ref_sampler),
    Case("BilinearSampler", [(1, 2, 3, 3), _grid((1, 2, 2, 4), 2.5)], attrs={"cudnn_off": True}, ref=ref_sampler,
         name="mostly_outside"),
    Case("_backward_BilinearSampler", [(2, 2, 3, 3), (2, 2, 4, 5), _grid((2, 2, 3, 3), 1.2)],
         ref=ref_sampler_backward, grad=(), rtol=1e-4, atol=1e-5),
    Case("SpatialTransformer", [(2, 2, 4, 5), _loc(2)], attrs=ST, ref=ref_st),
    Case("SpatialTransformer", [(1, 1, 3, 4), _loc(1)],
         attrs={**ST, "target_shape": (4, 2), "cudnn_off": False}, ref=ref_st, name="upsample"),
]
