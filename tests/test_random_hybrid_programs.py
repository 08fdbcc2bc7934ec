"""Random programs run the same hybridized as imperatively: a HybridBlock whose ``hybrid_forward`` (1.x,
``mx.nd``) or ``forward`` (2.0, ``mx.np``, traced by deferred compute) is a random sequence of ops
(elementwise, broadcast, reductions, reshapes, dense layers) over its inputs and its own earlier values,
on inputs of 4 rows or of 1, gives the same outputs and the same input and parameter gradients with
``hybridize()`` and with ``hybridize(static_alloc=True, static_shape=True)`` as unhybridized, over several
calls (the compiled forward, the train forward and backward programs, their passes, memory plans and
in-place writes all run). Hypothesis draws the programs (derandomized: the same cases every run); 1500
random 1.x programs and 800 2.0 ones passed once locally, and the 1.x test fails when the code generator
may write a result over an input that is read later."""
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import hybridlab as mx

# (arity, how it computes): every op keeps its input's (rows, 6) shape, so any value may feed any op
OPS = [
    (1, lambda F, a: F.relu(a)), (1, lambda F, a: F.tanh(a)), (1, lambda F, a: F.sigmoid(a)),
    (1, lambda F, a: a * 1.5), (1, lambda F, a: -a + 0.25), (1, lambda F, a: F.square(a)),
    (1, lambda F, a: F.softmax(a, axis=-1)), (1, lambda F, a: F.log_softmax(a, axis=1)),
    (1, lambda F, a: F.broadcast_sub(a, F.mean(a, axis=1, keepdims=True))),   # a row's mean
    (1, lambda F, a: F.broadcast_mul(a, F.sum(a, axis=0, keepdims=True))),    # a column's sum
    (1, lambda F, a: F.reshape_like(F.flip(F.reshape(a, (-1,)), axis=0), a)),
    (1, lambda F, a: F.clip(a, -0.5, 0.75)), (1, lambda F, a: F.sqrt(F.abs(a) + 1.0)),
    (1, lambda F, a: F.exp(-F.square(a))),
    (1, lambda F, a: F.Activation(a, act_type="softrelu")),
    (2, lambda F, a, b: a + b), (2, lambda F, a, b: a * b), (2, lambda F, a, b: a - b),
    (2, lambda F, a, b: F.maximum(a, b)), (2, lambda F, a, b: F.where(a > b, a, b * 0.5)),
    (2, lambda F, a, b: F.dot(F.dot(a, F.transpose(b)), a) * 0.1),
]


class RandomProgram(mx.gluon.HybridBlock):
    """``steps``: ``(op index, reads)``; ``reads`` index the values so far (the two inputs, a dense
    layer's output of the first input, then each step's result); every value not read later is an
    output, so no computed value is left out."""

    def __init__(self, steps):
        super().__init__()
        self.steps = steps
        self.fc = mx.gluon.nn.Dense(6, in_units=6, flatten=False)

    def hybrid_forward(self, F, x, y):
        return self._program([x, y, self.fc(x)], OPS, lambda fn, args: fn(F, *args))

    def _program(self, values, ops, call):
        """The steps run on ``values`` (``call(fn, args)`` runs op ``fn`` of ``ops``); the values no step read."""
        read = set()
        for k, picks in self.steps:
            arity, fn = ops[k]
            args = [values[p % len(values)] for p in picks[:arity]]
            read.update(p % len(values) for p in picks[:arity])
            values.append(call(fn, args))
        outs = [v for i, v in enumerate(values) if i >= 2 and i not in read]
        return outs[0] if len(outs) == 1 else tuple(outs)


def _run(steps, mode, inputs, block, array):
    """Outputs and gradients of three recorded calls and one more call of ``block(steps)`` on
    ``array(inputs)`` (the weights set alike), each a list of NumPy arrays."""
    net = block(steps)
    net.initialize()
    rng = np.random.default_rng(1)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.standard_normal(p.shape).astype(np.float32) * 0.5))
    if mode is not None:
        net.hybridize(**mode)
    x, y = (array(v) for v in inputs)
    x.attach_grad()
    y.attach_grad()
    got = []
    for _ in range(3):
        with mx.autograd.record():
            outs = _listed(net(x, y))
            loss = sum((o * (i + 1)).sum() for i, o in enumerate(outs))
        loss.backward()
        got.append([o.asnumpy() for o in outs] + [x.grad.asnumpy(), y.grad.asnumpy(), net.fc.weight.grad().asnumpy()])
    got.append([o.asnumpy() for o in _listed(net(x, y))])        # and a call not recorded
    return got


def _listed(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


@pytest.mark.filterwarnings("ignore:The 1-th input to HybridBlock is not used")    # (a program may not read y)
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(steps=st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.lists(st.integers(0, 9), min_size=2, max_size=2)),
                      min_size=1, max_size=6),
       rows=st.sampled_from([4, 1]))        # (one row: static programs compute through their buffers' rows)
@example(steps=[(16, [0, 2]), (15, [0, 2])], rows=4)   # x * fc(x), then x + fc(x): fc(x) is read twice
def test_a_random_program_hybridized_equals_it_run_imperatively(steps, rows):
    _check(steps, rows, RandomProgram, mx.nd.array)


def _check(steps, rows, block, array):
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((rows, 6)).astype(np.float32) for _ in range(2)]
    want = _run(steps, None, inputs, block, array)
    for mode in ({}, {"static_alloc": True, "static_shape": True}):
        got = _run(steps, mode, inputs, block, array)
        for call, (g, w) in enumerate(zip(got, want)):
            assert len(g) == len(w)
            for a, b in zip(g, w):
                np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=f"{mode} call {call} steps {steps}")


mnp, npx = mx.np, mx.npx
# the same ops in MXNet 2.0's spelling: array methods and mx.np / mx.npx functions
NP_OPS = [
    (1, lambda a: npx.relu(a)), (1, lambda a: mnp.tanh(a)), (1, lambda a: npx.sigmoid(a)),
    (1, lambda a: a * 1.5), (1, lambda a: -a + 0.25), (1, lambda a: mnp.square(a)),
    (1, lambda a: npx.softmax(a, axis=-1)), (1, lambda a: npx.log_softmax(a, axis=1)),
    (1, lambda a: a - a.mean(axis=1, keepdims=True)), (1, lambda a: a * a.sum(axis=0, keepdims=True)),
    (1, lambda a: mnp.flip(a.reshape(-1), axis=0).reshape(a.shape)),
    (1, lambda a: mnp.clip(a, -0.5, 0.75)), (1, lambda a: mnp.sqrt(mnp.abs(a) + 1.0)),
    (1, lambda a: mnp.exp(-mnp.square(a))), (1, lambda a: npx.activation(a, act_type="softrelu")),
    (2, lambda a, b: a + b), (2, lambda a, b: a * b), (2, lambda a, b: a - b),
    (2, lambda a, b: mnp.maximum(a, b)), (2, lambda a, b: mnp.where(a > b, a, b * 0.5)),
    (2, lambda a, b: mnp.dot(mnp.dot(a, b.T), a) * 0.1),
]


class RandomNpProgram(RandomProgram):
    """The same program written as MXNet 2.0 code: ``forward`` on ``mx.np`` arrays, ``NP_OPS``."""

    def forward(self, x, y):
        return self._program([x, y, self.fc(x)], NP_OPS, lambda fn, args: fn(*args))


@pytest.mark.filterwarnings("ignore:The 1-th input to HybridBlock is not used")
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(steps=st.lists(st.tuples(st.integers(0, len(NP_OPS) - 1), st.lists(st.integers(0, 9), min_size=2, max_size=2)),
                      min_size=1, max_size=6),
       rows=st.sampled_from([4, 1]))
def test_a_random_numpy_program_hybridized_equals_it_run_imperatively(steps, rows):
    _check(steps, rows, RandomNpProgram, mnp.array)
