"""The shared op checker: every registered op, on every available device, is checked for
  1. forward vs a NumPy reference (float32),
  2. shape/dtype inference (no data) vs the computed outputs,
  3. gradients vs central finite differences, in float64.

Every kernel path (NumPy, accelerated, GPU) runs the same cases. An accelerated CPU path that covers
float32 only (oneDNN's convolutions) runs 1 and 2 on it, and instead of 3 ``check_same_gradients``:
its float32 gradients equal the NumPy path's, which 3 checks in float64.

Cases live in ``tests/op_cases/<family>.py`` as ``CASES = [Case(...), ...]``; ``test_ops.py`` runs
them and fails for any registered op without a case.

A ``Case`` names the op (canonical registry name), its inputs, its attributes, and a reference::

    Case("broadcast_add", [(2, 3), (1, 3)], ref=lambda l, r: l + r)

Inputs are shapes (standard normal values), NumPy arrays (used as given; their dtype is kept unless
they are float), or ``gen(rng)`` callables returning arrays. ``grad`` lists the input indices to
check (default: every floating-point input); ``grad=()`` only for ops without a gradient.
"""
from dataclasses import dataclass, field

import numpy as np

import hybridlab as mx
from hybridlab.ops.registry import get_op
from hybridlab.ndarray.dispatch import invoke


@dataclass
class Case:
    op: str
    inputs: list
    ref: object = None               # ref(*numpy_inputs, **attrs) -> array or tuple of visible outputs
    attrs: dict = field(default_factory=dict)
    name: str = ""
    grad: object = None              # None: all float inputs; () or list of indices
    train: bool = False              # run in training mode (Dropout, BatchNorm)
    seed: int = None                 # reseed before every call (random ops, Dropout)
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-6
    eps: float = 1e-6
    gpu_check: object = None         # random ops on GPU: check(out_numpy, *inputs) instead of ref
    check_outputs: object = None     # which visible outputs to compare (default all)
    grad_rule: object = None         # loss layers: rule(*inputs, heads, **attrs) -> expected input grads

    @property
    def id(self):
        return f"{self.op}[{self.name}]" if self.name else self.op


def make_inputs(case, rng, dtype):
    """NumPy inputs of a case: float inputs in ``dtype``, others as given."""
    out = []
    for spec in case.inputs:
        if isinstance(spec, tuple):
            arr = rng.standard_normal(spec)
        elif callable(spec):
            arr = np.asarray(spec(rng))
        else:
            arr = np.asarray(spec)
        if arr.dtype.kind == "f":
            arr = arr.astype(dtype)
        out.append(arr)
    return out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def run_op(case, device, inputs, record=False, grad_vars=()):
    op = get_op(case.op)
    arrays = [mx.nd.array(x, device=device, dtype=x.dtype) for x in inputs]
    for i in grad_vars:
        arrays[i].attach_grad()
    if case.seed is not None:
        mx.random.seed(case.seed)
    scope = mx.autograd.record(train_mode=case.train) if record else (
        mx.autograd.train_mode() if case.train else mx.autograd.predict_mode())
    with scope, device:   # the device context places ops without inputs (creation, random)
        outs = _as_list(invoke(op, arrays, dict(case.attrs)))
    return arrays, outs


def check_forward(case, device):
    rng = np.random.default_rng(0)
    inputs = make_inputs(case, rng, np.float32)
    _, outs = run_op(case, device, inputs)
    got = [o.asnumpy() for o in outs]
    if device.is_gpu and case.gpu_check is not None:
        case.gpu_check(got, *inputs)
    else:
        expected = _as_list(case.ref(*[x.copy() for x in inputs], **case.attrs))
        assert len(got) == len(expected), f"{case.id}: {len(got)} outputs, reference has {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            if case.check_outputs is not None and i not in case.check_outputs:
                continue
            e = np.asarray(e)
            assert g.shape == e.shape, f"{case.id} output {i}: shape {g.shape}, reference {e.shape}"
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(g, e, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id} output {i}")
            else:
                np.testing.assert_array_equal(g, e, err_msg=f"{case.id} output {i}")
    return inputs, outs


def check_inference(case, inputs, outs):
    op = get_op(case.op)
    a = op.parse_attrs(dict(case.attrs))
    shapes, dtypes = op.infer(a, [x.shape for x in inputs], [x.dtype for x in inputs])
    if op.dynamic_shape:
        return
    assert shapes is not None and len(shapes) >= len(outs), f"{case.id}: inferred {shapes} for {len(outs)} outputs"
    for i, o in enumerate(outs):
        assert tuple(shapes[i]) == o.shape, f"{case.id} output {i}: inferred shape {shapes[i]}, computed {o.shape}"
        assert np.dtype(dtypes[i]) == o.dtype, f"{case.id} output {i}: inferred dtype {dtypes[i]}, computed {o.dtype}"


def check_gradient(case, device):
    op = get_op(case.op)
    rng = np.random.default_rng(1)
    inputs = make_inputs(case, rng, np.float64)
    if case.grad is None:
        wrt = [i for i, x in enumerate(inputs) if x.dtype.kind == "f"]
    else:
        wrt = list(case.grad)
    if not op.differentiable:
        assert not wrt, f"{case.id}: op has no gradient; the case must say grad=()"
        assert op.no_grad_reason, f"{case.op}: a non-differentiable op must state no_grad_reason"
        return
    assert wrt, f"{case.id}: differentiable op needs at least one input to check"
    arrays, outs = run_op(case, device, inputs, record=True, grad_vars=wrt)
    heads = [rng.standard_normal(o.shape) if o.dtype.kind == "f" else None for o in outs]
    float_outs = [(o, h) for o, h in zip(outs, heads) if h is not None]
    mx.autograd.backward([o for o, _ in float_outs],
                         [mx.nd.array(h, device=device, dtype=o.dtype) for o, h in float_outs])
    if case.grad_rule is not None:   # the backward of a loss layer is a rule, not d(forward)
        expected = case.grad_rule(*[x.copy() for x in inputs], heads, **case.attrs)
        for i in wrt:
            want = np.zeros_like(inputs[i]) if expected[i] is None else expected[i]
            np.testing.assert_allclose(arrays[i].grad.asnumpy(), want, rtol=case.grad_rtol,
                                       atol=case.grad_atol, err_msg=f"{case.id}: gradient rule, input {i}")
        return

    def objective(xs):
        _, o = run_op(case, device, xs)
        return sum(float((oi.asnumpy().astype(np.float64) * h).sum()) for oi, h in zip(o, heads) if h is not None)

    for i in wrt:
        analytic = arrays[i].grad.asnumpy()
        numeric = np.zeros_like(inputs[i])
        flat = inputs[i].reshape(-1)
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + case.eps
            plus = objective(inputs)
            flat[j] = orig - case.eps
            minus = objective(inputs)
            flat[j] = orig
            numeric.reshape(-1)[j] = (plus - minus) / (2 * case.eps)
        np.testing.assert_allclose(analytic, numeric, rtol=case.grad_rtol, atol=case.grad_atol,
                                   err_msg=f"{case.id}: gradient of input {i} ({op.input_names(op.parse_attrs(dict(case.attrs)))[i]})")


def check_same_gradients(case, device, path, reference):
    """The float32 input gradients of ``case`` computed inside ``path()`` equal those computed inside
    ``reference()`` (context-manager factories selecting two kernel paths) within float32 rounding
    (relative 1e-4 of the largest reference value, as sums run in different orders)."""
    rng = np.random.default_rng(1)
    inputs = make_inputs(case, rng, np.float32)
    wrt = [i for i, x in enumerate(inputs) if x.dtype.kind == "f"] if case.grad is None else list(case.grad)
    if not wrt:            # an op without a gradient (grad=()): nothing to compare
        return
    heads, results = None, []
    for scope in (path, reference):
        with scope():
            arrays, outs = run_op(case, device, inputs, record=True, grad_vars=wrt)
            if heads is None:
                heads = [rng.standard_normal(o.shape).astype(o.dtype) if o.dtype.kind == "f" else None for o in outs]
            pairs = [(o, h) for o, h in zip(outs, heads) if h is not None]
            mx.autograd.backward([o for o, _ in pairs],
                                 [mx.nd.array(h, device=device, dtype=o.dtype) for o, h in pairs])
        results.append([arrays[i].grad.asnumpy() for i in wrt])
    for i, got, want in zip(wrt, *results):
        scale = max(1.0, float(np.abs(want).max(initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale,
                                   err_msg=f"{case.id}: float32 gradient of input {i} differs between kernel paths")
