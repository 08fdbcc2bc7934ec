"""mx.np behaviour MXNet 1.9.1's own test_numpy_ndarray.py / test_numpy_gluon.py check (values
recorded from real MXNet 1.9.1): row-major only creation and copy, formatting, multinomial with no
categories, Python bools and 0-d masks as index keys, values with extra leading 1s, empty slices
under autograd and tracing, a np-mode Block's output types, np.dot filling a deferred shape."""
import numpy as onp
import pytest

import hybridlab as mx
from hybridlab import autograd, gluon

np = mx.np


@pytest.fixture
def np_mode():
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


@pytest.mark.parametrize("call", [
    lambda: np.empty((2,), order="F"), lambda: np.zeros((2,), order="F"), lambda: np.ones((2,), order="F"),
    lambda: np.array([1, 2]).copy(order="F"),
])
def test_order_other_than_c_is_not_implemented(call):
    with pytest.raises(NotImplementedError) as info:
        call()
    assert isinstance(info.value, mx.MXNetError) and "expected 'C'" in str(info.value)
    assert np.array([1, 2], dtype="int32").copy().asnumpy().tolist() == [1, 2]


def test_formatting_follows_mxnet_np():
    assert "{:0.3g}".format(np.array(onp.pi)) == "3.14"
    assert "{}".format(np.array([1.5, 2])) == "[1.5 2. ]"
    assert str(np.array(2.5)) == "2.5"
    with pytest.raises(TypeError, match="format_spec"):
        "{:30}".format(np.array([onp.pi]))
    assert f"{mx.nd.array([2]):.2f}" == "2.00"      # mx.nd keeps hybridlab's one-element convenience


def test_multinomial_without_categories_is_empty(np_mode):
    out = np.random.multinomial(10, [], size=(2, 3))
    assert out.shape == (2, 3, 0) and out.dtype == onp.int64
    assert np.random.multinomial(10, np.array([])).shape == (0,)


def test_python_bools_and_0d_masks_index_as_a_new_axis(np_mode):
    a = np.arange(6).reshape(2, 3)
    assert a[True].shape == (1, 2, 3)
    assert a[0, True].asnumpy().tolist() == [[0.0, 1.0, 2.0]]
    assert a[np.array(False, dtype=bool)].shape == (0, 2, 3)
    b = np.zeros((2, 3))
    b[0, True, np.array([True, False, True], dtype=bool)] = 7
    assert b.asnumpy().tolist() == [[7.0, 0.0, 7.0], [0.0, 0.0, 0.0]]
    d = np.zeros((2, 3))
    d[False, 1] = 8
    assert d.asnumpy().tolist() == [[0.0] * 3] * 2
    with pytest.raises(IndexError):
        np.ones((5, 4, 3))[np.array([True], dtype=bool)]
    with pytest.raises(mx.MXNetError, match="a Python bool"):   # mx.nd: not a key (MXNet fails too)
        mx.nd.zeros((2, 3))[True]


def test_assigned_values_may_have_extra_leading_ones(np_mode):
    c = np.zeros((2, 3))
    c[1, 2] = np.array([[5.0]])
    c[0] = onp.ones((1, 1, 3)) * 2
    assert c.asnumpy().tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 5.0]]
    with pytest.raises(mx.MXNetError):        # MXNet: MXNetError too
        c[0] = onp.ones((2, 3))


def test_empty_slices_are_recorded(np_mode):
    x = np.ones((3, 0))
    x.attach_grad()
    with autograd.record():
        y = x[2]
    y.backward()
    assert y.shape == (0,) and x.grad.shape == (3, 0)
    x = np.ones((2, 3))
    x.attach_grad()
    with autograd.record():
        y = x[1:1]
    y.backward()
    assert y.shape == (0, 3) and x.grad.asnumpy().tolist() == [[0.0] * 3] * 2
    e = np.zeros((0,))
    v = np.zeros((0,))
    v.attach_grad()
    with autograd.record():
        e[:] = v
        e.backward()
    assert v.grad.shape == (0,)


def test_empty_slices_inside_a_hybridized_block(np_mode):
    class Slice(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[1:1] + 1

    net = Slice()
    net.hybridize()
    assert net(np.ones((3, 2))).shape == (0, 2)


def test_np_mode_block_outputs_must_all_be_np_arrays():
    @mx.util.use_np
    class Mixed(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + 1, F.np.multiply(x, x)

    @mx.util.use_np
    class Same(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.add(x, x), F.np.multiply(x, x)

    for hybridize in (False, True):
        net, ok = Mixed(), Same()
        if hybridize:
            net.hybridize()
            ok.hybridize()
        with pytest.raises(TypeError):
            net(np.ones((2,)))
        assert [o._np for o in ok(np.ones((2,)))] == [True, True]
    assert not mx.util.is_np_array()


def test_use_np_on_a_class_covers_inherited_methods():
    @mx.util.use_np
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x

    seen = []
    assert "__call__" in vars(Net)     # the inherited __call__ is wrapped on the subclass, as MXNet's
    net = Net()
    net.register_forward_hook(lambda block, args, out: seen.append(mx.util.is_np_array()))
    net(np.ones((1,)))
    assert seen == [True] and not mx.util.is_np_array()


def test_np_dot_fills_a_deferred_parameter_shape(np_mode):
    class Regress(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(0, 4), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)

    net = Regress()
    net.initialize()
    net.hybridize()
    assert net(np.ones((2, 5))).shape == (2, 4) and net.w.shape == (5, 4)


def test_optimizer_records_np_mode_and_updater_works_without_it(np_mode):
    opt = mx.optimizer.SGD()
    assert opt.allow_np_array is True
    delattr(opt, "allow_np_array")
    mx.optimizer.Updater(opt)(0, np.ones((0, 0)), np.zeros((0, 0)))


def test_np_ndarray_is_its_own_type_a_subclass_of_ndarray_as_in_mxnet():
    import pickle
    a = mx.np.ones((2,))
    assert type(a) is mx.np.ndarray and isinstance(a, mx.nd.NDArray) and type(mx.nd.ones((2,))) is mx.nd.NDArray
    assert not isinstance(mx.nd.ones((2,)), mx.np.ndarray)
    assert type(a.as_nd_ndarray()) is mx.nd.NDArray and type(mx.nd.ones(2).as_np_ndarray()) is mx.np.ndarray
    assert type(a + 1) is mx.np.ndarray and type(mx.np.sum(a)) is mx.np.ndarray
    assert type(pickle.loads(pickle.dumps(a))) is mx.np.ndarray
    assert type(a).__name__ == "ndarray"

