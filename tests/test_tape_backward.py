"""The imperative end of the tape is differentiated by one compiled program once its structure comes
again (``compiler.tape_backward``): every gradient equals the op-by-op backward's, and what must
see or do each gradient op (op hooks, recorded gradients, ``autograd.Function``) still runs op by
op."""
import contextlib
import importlib

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import hybridlab as mx
from hybridlab.compiler import tape_backward

driver = importlib.import_module("hybridlab.autograd.backward")   # (mx.autograd.backward is the function)


def _softmax_ce(rng):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.standard_normal(p.shape).astype(np.float32)))
    net.hybridize()
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 3, 5))
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        return [p.grad().asnumpy().copy() for p in net.collect_params().values()]
    step.net = net
    return step


def _leaf_twice(rng):
    x = mx.nd.array(rng.standard_normal((3, 4)).astype(np.float32))
    x.attach_grad()

    def step():
        with mx.autograd.record():
            y = (x * x + mx.nd.exp(x) * 0.5).sum(axis=1)
            z = mx.nd.broadcast_mul(y.reshape((3, 1)), x).mean()
        z.backward()
        return [x.grad.asnumpy().copy()]
    return step


def _split_and_head_grad(rng):
    x = mx.nd.array(rng.standard_normal((4, 6)).astype(np.float32))
    w = mx.nd.array(rng.standard_normal((6,)).astype(np.float32))
    x.attach_grad()
    w.attach_grad(grad_req="add")
    head = mx.nd.array(rng.standard_normal((4, 3)).astype(np.float32))

    def step():
        with mx.autograd.record():
            a, b = mx.nd.split(mx.nd.broadcast_mul(x, w), num_outputs=2, axis=1)
            out = mx.nd.tanh(a) - mx.nd.relu(b) * 3
        out.backward(head, retain_graph=True)
        out.backward(head)
        return [x.grad.asnumpy().copy(), w.grad.asnumpy().copy()]
    return step


def _set_params(net, rng):
    for p in net.collect_params().values():
        value = rng.standard_normal(p.shape).astype(np.float32)
        p.set_data(mx.nd.array(np.abs(value) + 0.5 if p.name.endswith("_var") else value))


class _TwoOutputs(mx.gluon.HybridBlock):
    """``h * 1.0`` of a dense layer's output ``h``, and ``second(F, h)``: two outputs of one shape."""

    def __init__(self, second):
        super().__init__()
        self.second = second
        self.fc = mx.gluon.nn.Dense(3, in_units=4)

    def hybrid_forward(self, F, x):
        h = self.fc(x)
        return h * 1.0, self.second(F, h)


def _two_outputs(rng, second):
    net = _TwoOutputs(second)
    net.initialize()
    _set_params(net, rng)
    net.hybridize()
    return net


def _batchnorm_net_and_add_req(rng):
    """A hybridized block with BatchNorm (its backward updates the moving statistics once per call),
    an input that needs a gradient and a parameter accumulating its gradient ('add'), under an
    imperative loss: the block's backward joins the loss's."""
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(6, in_units=4), mx.gluon.nn.BatchNorm(in_channels=6), mx.gluon.nn.Dense(2, in_units=6))
    net.initialize()
    _set_params(net, rng)
    net.hybridize()
    net[0].bias.grad_req = "add"
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
    x.attach_grad()
    y = mx.nd.array(rng.standard_normal((5, 2)).astype(np.float32))
    params = list(net.collect_params().values())

    def step():
        with mx.autograd.record():
            loss = ((net(x) - y) ** 2).mean(axis=1)
        loss.backward()
        return [x.grad.asnumpy().copy()] + [(p.grad() if p.grad_req != "null" else p.data()).asnumpy().copy()
                                            for p in params]
    return step


def _outputs_read_either_way(rng):
    """A block's two outputs of one shape, read by the same loss ops the other way round on
    alternate backwards: two structures, not one program fed the outputs swapped."""
    net = _two_outputs(rng, lambda F, h: h * h)
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))

    def step():
        grads = []
        for swap in (False, True):
            with mx.autograd.record():
                a, b = net(x)
                if swap:
                    a, b = b, a
                loss = (a * 2.0 + b).sum()
            loss.backward()
            grads.append(net.fc.weight.grad().asnumpy().copy())
        return grads
    return step


def _two_outputs_one_read(rng):
    """A block with two outputs, one of them unused by the loss: not joined (no head gradient for
    it), the calls alone are compiled; ``autograd.grad`` returns the gradients (no buffers)."""
    net = _two_outputs(rng, lambda F, h: F.relu(h))
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
    x.attach_grad()

    def step():
        with mx.autograd.record():
            h, _ = net(x)
            loss = mx.nd.log_softmax(h).sum(axis=1) * 2
        first = mx.autograd.grad(loss, [x])[0].asnumpy().copy()
        with mx.autograd.record():
            loss = mx.nd.exp(net(x)[1]).sum(axis=1) * 2
        second = mx.autograd.grad(loss, [x, net.fc.weight.data()])
        return [first] + [g.asnumpy().copy() for g in second]
    return step


def _output_read_twice(rng):
    """The block's output read through two arrays (itself and its NumPy-style view): its gradient is
    the sum of both reads' (the block does not join: the program would see two head gradients)."""
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    _set_params(net, rng)
    net.hybridize()
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))

    def step():
        with mx.autograd.record():
            out = net(x)
            loss = mx.nd.exp(out).sum(axis=1) + (out.as_np_ndarray() * 3).as_nd_ndarray().sum(axis=1)
        loss.backward()
        return [p.grad().asnumpy().copy() for p in net.collect_params().values()]
    return step


def _block_backward_twice(rng):
    """The joined backward run twice on one graph (``retain_graph``), the weight accumulating ('add')
    and the bias written: the same values as op by op."""
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    _set_params(net, rng)
    net.hybridize()
    net.weight.grad_req = "add"
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
    head = mx.nd.array(rng.standard_normal((5,)).astype(np.float32))

    def step():
        net.weight.zero_grad()
        with mx.autograd.record():
            loss = mx.nd.tanh(net(x)).sum(axis=1) * 2
        loss.backward(head, retain_graph=True)
        loss.backward(head * 3)
        return [p.grad().asnumpy().copy() for p in net.collect_params().values()]
    return step


@pytest.mark.parametrize("make", [_softmax_ce, _leaf_twice, _split_and_head_grad, _batchnorm_net_and_add_req,
                                  _two_outputs_one_read, _output_read_twice, _block_backward_twice,
                                  _outputs_read_either_way])
def test_compiled_imperative_backward_equals_op_by_op(make, monkeypatch):
    steps = {}
    for compiled in (True, False):
        with monkeypatch.context() as m:
            if not compiled:
                m.setattr(driver, "_segment_backward", [None])
            step = make(np.random.default_rng(7))
            steps[compiled] = [step() for _ in range(3)]
    for got, want in zip(steps[True], steps[False]):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_the_loss_of_a_training_loop_runs_compiled_and_one_offs_do_not():
    before = len(tape_backward._programs)
    step = _softmax_ce(np.random.default_rng(3))
    step()
    assert len(tape_backward._programs) == before             # seen once: op by op
    step()
    program = tape_backward.last_program()
    # the network's call joins the loss's calls: one program, the loss's gradients then the network's,
    # the parameters' gradients written into their buffers
    assert "imperative backward of log_softmax, pick, negative, mean, after the backward of <Symbol" in \
        program.source.splitlines()[0]
    assert "_backward_pick_log_softmax(" in program.source and "matmul(" in program.source
    assert "(the gradient buffers)" in program.source


def test_the_joined_backward_writes_the_parameter_gradients_into_their_buffers():
    step = _softmax_ce(np.random.default_rng(5))
    for _ in range(2):
        step()
    params = list(step.net.collect_params().values())
    buffers = [p.grad()._data for p in params]
    for b in buffers:
        b[...] = 0
    got = step()
    assert "(the gradient buffers)" in tape_backward.last_program().source
    assert all(p.grad()._data is b for p, b in zip(params, buffers))      # the same arrays, written
    assert all(np.array_equal(b, g) and b.any() for b, g in zip(buffers, got))


def test_blocks_called_again_leave_no_stale_structures():
    """A network built again (a notebook cell run twice) makes new plans: structures of dead ones are
    dropped when the cache fills instead of keeping the loss op by op."""
    for seed in range(4):
        step = _softmax_ce(np.random.default_rng(seed))
        for _ in range(2):
            step()
        assert "after the backward of" in tape_backward.last_program().source.splitlines()[0]
    import gc
    gc.collect()
    live = [seg for seg in tape_backward._programs.values() if seg is not None and seg.plan is not None]
    tape_backward._forget_dead_plans()
    assert len([seg for seg in tape_backward._programs.values() if seg is not None and seg.plan is not None]) < len(live)


def test_op_hooks_and_functions_keep_the_op_by_op_backward():
    from hybridlab import op_monitor
    x = mx.nd.array([[1.0, -2.0], [3.0, 0.5]])
    x.attach_grad()
    seen = []
    for _ in range(3):
        with op_monitor.hooks("h_", lambda name, op, arr: seen.append(name)):
            with mx.autograd.record():
                y = mx.nd.log_softmax(x * 2).sum()
            y.backward()
    assert any("backward_log_softmax" in n for n in seen)      # the hooks saw the gradient ops

    class Square(mx.autograd.Function):
        def forward(self, a):
            self.save_for_backward(a)
            return a * a

        def backward(self, dy):
            a, = self.saved_tensors
            return dy * 2 * a
    for _ in range(3):
        with mx.autograd.record():
            y = (Square()(x * 3) + 1).sum()
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 18 * x.asnumpy(), rtol=1e-6)
    for _ in range(3):                                         # recorded gradients: op by op, differentiable
        with mx.autograd.record():
            y = x * x * x
            g = mx.autograd.grad(y, [x], create_graph=True)[0]
        g.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * x.asnumpy(), rtol=1e-5)


# ---- random tapes: compiled programs stay apart -----------------------------------------------------
# Two tapes of one random program fed its starting values in two orders (the block's two outputs of
# one shape, a variable, a constant), run in turns: one op sequence, two structures, so each compiles to
# its own program (the key tells them apart) and every backward equals the op-by-op one.
UNARY = (lambda a: mx.nd.tanh(a), lambda a: mx.nd.sigmoid(a), lambda a: -a, lambda a: a * 2.0)
BINARY = (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b)
OPS = [(1, k) for k in range(len(UNARY))] + [(2, k) for k in range(len(BINARY))]


def _tape(ops, reads, order):
    """The program: per step an op (``ops``) reading earlier values (``reads``, indices into the
    values so far: the four starting values in ``order``, then each step's result); the loss adds the
    first of them (a loss of the constant alone is not on the tape: both backwards raise alike)."""
    def run(start):
        values = [start[i] for i in order]
        for (arity, k), picks in zip(ops, reads):
            fn = (UNARY if arity == 1 else BINARY)[k]
            values.append(fn(*[values[p % len(values)] for p in picks[:arity]]))
        return (values[-1] + values[0]).sum(axis=1)
    return run


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(ops=st.lists(st.sampled_from(OPS), min_size=1, max_size=5),
       reads=st.lists(st.lists(st.integers(0, 7), min_size=2, max_size=2), min_size=5, max_size=5),
       orders=st.lists(st.permutations(range(4)), min_size=2, max_size=2),
       req=st.sampled_from(["write", "add"]), how=st.sampled_from(["backward", "retain_graph", "grad"]))
@example(ops=[(2, 0)], reads=[[0, 1]] * 5, orders=[[0, 1, 2, 3], [1, 0, 2, 3]],   # (a + b) + a, then (b + a) + b
         req="write", how="backward")
def test_one_program_fed_two_ways_in_turns_gives_the_op_by_op_gradients(ops, reads, orders, req, how):
    """``req``: the variable's and the block's bias's grad_req; ``how``: ``backward``, twice with
    ``retain_graph`` the first time, or ``autograd.grad`` of the block's input (nothing stored)."""
    tapes = [_tape(ops, reads, order) for order in orders]
    got = {}
    for compiled in (True, False):
        rng = np.random.default_rng(0)
        net = _two_outputs(rng, lambda F, h: F.tanh(h))
        net.fc.bias.grad_req = req
        x, w, c = (mx.nd.array(rng.standard_normal(s).astype(np.float32)) for s in ((5, 4), (5, 3), (5, 3)))
        x.attach_grad()
        w.attach_grad(grad_req=req)
        saved, driver._segment_backward = driver._segment_backward, (driver._segment_backward if compiled else [None])
        try:
            grads = []
            for turn in range(6):
                with mx.autograd.record():
                    loss = tapes[turn % 2]([*net(x), w, c])
                try:
                    if how == "grad":
                        grads.append([mx.autograd.grad(loss, [x])[0].asnumpy().copy()])
                        continue
                    if how == "retain_graph":
                        loss.backward(retain_graph=True)
                    loss.backward()
                except mx.MXNetError as err:        # (not on the tape, or x not reached by autograd.grad)
                    grads.append([str(err)])
                    continue
                grads.append([a.asnumpy().copy() for a in (x.grad, w.grad, net.fc.weight.grad(), net.fc.bias.grad())])
        finally:
            driver._segment_backward = saved
        got[compiled] = grads
    for turn, (a, b) in enumerate(zip(got[True], got[False])):
        assert len(a) == len(b), f"backward {turn}: {a} against {b}"
        for g, want in zip(a, b):
            if isinstance(want, str):
                assert g == want, f"backward {turn}"
            else:
                np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5, err_msg=f"backward {turn}")


# ---- the replay of a whole backward -----------------------------------------------------------------
# A training loop's backward() is the last one again but for the values: the compiled path checks the
# tape against it and runs the program at once (``tape_backward._Replay``). Whatever the loop changes
# between its steps, every step's gradients (and weights) must equal the op-by-op loop's.
CHANGES = ("none", "add", "write", "null", "labels", "batch", "set_data", "step", "retain", "head", "zero_grad",
           "one_constant", "two_constants", "one_product", "hooks", "temperature_1", "temperature_2")


def _replayed_loop(changes, compiled, replays):
    """Per change of ``changes`` (made before its step): a step of the loop (hybridized dense layer,
    a loss written with ``mx.nd``, ``backward``), its gradients and weights; ``replays`` counts the
    backwards the replay did."""
    from hybridlab import op_monitor
    rng = np.random.default_rng(11)
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    _set_params(net, rng)
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    ce = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def batch(n):
        return (mx.nd.array(rng.standard_normal((n, 4)).astype(np.float32)), mx.nd.array(rng.integers(0, 3, n)),
                mx.nd.array(rng.standard_normal((1, 3)).astype(np.float32)))
    x, y, c = batch(5)
    c2, loss_kind = c, "ce"
    out, saved = [], driver._segment_backward
    driver._segment_backward = saved if compiled else [None]
    try:
        for change in changes:
            if change in ("add", "write", "null"):
                net.weight.grad_req = "add" if change == "add" else "write"
                net.bias.grad_req = "null" if change == "null" else "write"
            elif change in ("labels", "batch"):
                x, y, c = batch(5 if change == "labels" else 3)
                c2 = c
            elif change == "set_data":
                net.weight.set_data(mx.nd.array(rng.standard_normal((3, 4)).astype(np.float32)))
            elif change == "zero_grad":
                net.collect_params().zero_grad()
            elif change in ("one_constant", "two_constants"):
                loss_kind = "constants"       # the same ops reading one constant twice, or two alike
                c2 = c if change == "one_constant" else mx.nd.array(rng.standard_normal((1, 3)).astype(np.float32))
            elif change.startswith("temperature") or change == "one_product":
                loss_kind = change            # the same ops and wiring, another attribute; or one product used
                c2 = c                        # twice where "constants" has two alike (one call at two places)
            with mx.autograd.record():
                z = net(x)
                if loss_kind == "ce":
                    loss = ce(z, y)
                elif loss_kind == "one_product":
                    product = mx.nd.broadcast_mul(z, c)
                    loss = (product + product).sum(axis=1)
                elif loss_kind.startswith("temperature"):
                    t = float(loss_kind[-1])
                    loss = -mx.nd.pick(mx.nd.log_softmax(z, axis=-1, temperature=t), y, axis=-1)
                else:
                    loss = (mx.nd.broadcast_mul(z, c) + mx.nd.broadcast_mul(z, c2)).sum(axis=1)
            before = replays[0]
            if change == "retain":
                loss.backward(retain_graph=True)
            if change == "head":
                loss.backward(mx.nd.ones(loss.shape) * 2)
            elif change == "hooks":
                with op_monitor.hooks("h_", lambda *_: None):
                    loss.backward()
            else:
                loss.backward()
            if change == "step":
                trainer.step(x.shape[0])
            out.append((replays[0] > before, [p.grad().asnumpy().copy() if p.grad_req != "null" else None
                                              for p in (net.weight, net.bias)] + [net.weight.data().asnumpy().copy()]))
    finally:
        driver._segment_backward = saved
    return out


@contextlib.contextmanager
def _counting_replays():
    """Inside: ``[count]`` of the backwards the replay did."""
    count, run = [0], tape_backward._Replay.run

    def counted(self, head):
        done = run(self, head)
        count[0] += done is not None
        return done
    tape_backward._Replay.run = counted
    try:
        yield count
    finally:
        tape_backward._Replay.run = run


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(changes=st.lists(st.sampled_from(CHANGES), min_size=4, max_size=12))
@example(changes=["none"] * 3 + [c for c in CHANGES for _ in range(4)])
def test_a_loop_whose_steps_change_in_any_way_gets_the_op_by_op_gradients_replayed_or_not(changes):
    got = {}
    for compiled in (True, False):
        with _counting_replays() as count:
            got[compiled] = _replayed_loop(changes, compiled, count)
    assert not any(replayed for replayed, _ in got[False])
    for i, ((replayed, a), (_, b)) in enumerate(zip(got[True], got[False])):
        if changes[i] in ("add", "head", "hooks"):       # (a sum into the buffer, a head gradient, op hooks)
            assert not replayed, f"step {i} ({changes[i]}) was replayed"
        for g, want in zip(a, b):
            if want is None:
                assert g is None
            else:
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6, err_msg=f"step {i} ({changes[i]})")


def test_a_training_loop_replays_its_backward():
    with _counting_replays() as count:
        steps = _replayed_loop(["none"] * 6, True, count)
    assert [r for r, _ in steps] == [False, False, True, True, True, True]     # seen, compiled, then replayed


def _alternating_loop(compiled, replays, rounds=5):
    """Two nets, each with its loss and trainer, stepping in turn (a GAN's discriminator and generator
    steps, alike in form): per step, whether it was replayed, its net's gradients and weights."""
    rng = np.random.default_rng(5)
    steps, saved = [], driver._segment_backward
    driver._segment_backward = saved if compiled else [None]
    try:
        pairs = []
        for units in (3, 3):        # (one loss structure: only the nets' cached ops tell the two apart)
            net = mx.gluon.nn.Dense(units, in_units=4)
            net.initialize()
            _set_params(net, rng)
            net.hybridize()
            pairs.append((net, mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})))
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        for _ in range(rounds):
            for net, trainer in pairs:
                x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
                y = mx.nd.array(rng.integers(0, 3, 5))
                with mx.autograd.record():
                    loss = loss_fn(net(x), y)
                before = replays[0]
                loss.backward()
                trainer.step(5)
                steps.append((replays[0] > before, [a.asnumpy().copy() for a in (net.weight.grad(), net.bias.grad(),
                                                                                   net.weight.data())]))
    finally:
        driver._segment_backward = saved
    return steps


def test_a_loop_alternating_two_nets_replays_both():
    """Each net's backward is replayed from its third step on (a template kept per compiled segment, not
    only the last one), and every step equals the op-by-op loop's."""
    got = {}
    for compiled in (True, False):
        with _counting_replays() as count:
            got[compiled] = _alternating_loop(compiled, count)
    assert [r for r, _ in got[True]] == [False] * 4 + [True] * 6      # (steps alternate: net 0, net 1, ...)
    assert not any(r for r, _ in got[False])
    for i, ((_, a), (_, b)) in enumerate(zip(got[True], got[False])):
        for g, want in zip(a, b):
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6, err_msg=f"step {i}")
