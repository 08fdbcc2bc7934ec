"""Op-checker cases for ``Custom`` (an op written in Python with ``mx.operator``) and its hidden
``_backward_Custom``: a two-argument, two-output property with a keyword reaching its constructor as
a string. The checker's finite differences check that ``backward`` matches ``forward``."""
import numpy as np

import hybridlab as mx
from op_checker import Case


class _ScaledProduct(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        x, y = in_data
        self.assign(out_data[0], req[0], x * y * self.scale)
        self.assign(out_data[1], req[1], mx.nd.tanh(x))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, y = in_data
        self.assign(in_grad[0], req[0], out_grad[0] * y * self.scale + out_grad[1] * (1 - out_data[1] ** 2))
        self.assign(in_grad[1], req[1], out_grad[0] * x * self.scale)


@mx.operator.register("checker_scaled_product")
class _ScaledProductProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__()
        self.scale = float(scale)

    def list_arguments(self):
        return ["lhs", "rhs"]

    def list_outputs(self):
        return ["product", "tanh"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _ScaledProduct(self.scale)


def ref_forward(x, y, scale, **_):
    return x * y * float(scale), np.tanh(x)


def ref_backward(g0, g1, x, y, o0, o1, scale, **_):
    return g0 * y * float(scale) + g1 * (1 - o1 ** 2), g0 * x * float(scale)


_ATTRS = {"op_type": "checker_scaled_product", "scale": "2.5"}

CASES = [
    Case("Custom", [(3, 4), (3, 4)], ref=ref_forward, attrs=_ATTRS),
    Case("_backward_Custom", [(3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4)], ref=ref_backward, attrs=_ATTRS,
         grad=()),
]
