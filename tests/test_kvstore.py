"""mx.kv / mx.kvstore: the single-process KVStore ('local', 'device', ...), the KVStoreBase registry
and TestStore. Expected values were recorded from real MXNet 1.9.1 (hard-coded: no MXNet needed)."""
import numpy as np
import pytest

import hybridlab as mx


def _val(kv, key, shape=(2,)):
    out = mx.nd.zeros(shape)
    kv.pull(key, out=out)
    return out.asnumpy().tolist()


@pytest.mark.parametrize("name, kind", [("local", "local"), ("device", "device"), ("LOCAL", "local"),
                                        ("local_allreduce_cpu", "local_allreduce_cpu"),
                                        ("local_update_cpu", "local_update_cpu"),
                                        ("local_allreduce_device", "local_allreduce_device")])
def test_create_local_types(name, kind):
    kv = mx.kv.create(name)
    assert type(kv).__name__ == "KVStore" and isinstance(kv, mx.kvstore.KVStoreBase)
    assert (kv.type, kv.rank, kv.num_workers, kv.is_capable("optimizer")) == (kind, 0, 1, True)
    assert kv._updater is None and kv._barrier() is None


def test_create_errors_and_registry():
    assert mx.kv is mx.kvstore and mx.kv.create().type == "local"
    with pytest.raises(mx.MXNetError, match="asynchronous updates need parameter servers"):
        mx.kv.create("dist_async")
    with pytest.raises(mx.MXNetError, match="'horovod': not available in hybridlab"):
        mx.kv.create("horovod")
    with pytest.raises(mx.MXNetError, match="NCCL is not available"):
        mx.kv.create("nccl")
    with pytest.raises(TypeError, match="name must be a string"):
        mx.kv.create(3)
    with pytest.raises(ValueError, match="Unknown capability: foo"):
        mx.kv.create().is_capable("foo")
    ts = mx.kv.create("teststore")
    assert type(ts) is mx.kvstore.TestStore
    assert (ts.type, ts.rank, ts.num_workers, ts.is_capable("optimizer")) == ("teststore", 0, 1, False)

    @mx.kvstore.KVStoreBase.register
    class MyStoreForTest(mx.kvstore.KVStoreBase):
        pass
    assert type(mx.kv.create("mystorefortest")) is MyStoreForTest
    with pytest.warns(UserWarning, match="is overriding existing kvstore"):
        mx.kvstore.KVStoreBase.register(type("MyStoreForTest", (mx.kvstore.KVStoreBase,), {}))
    del mx.kvstore.KVStoreBase.kv_registry["mystorefortest"]


def test_teststore_pushpull_and_broadcast():
    ts = mx.kv.create("teststore")
    vals = [mx.nd.ones((2,)), mx.nd.ones((2,), ctx=mx.cpu(1)) * 2]
    ts.pushpull(0, vals)
    assert [v.asnumpy().tolist() for v in vals] == [[3.0, 3.0]] * 2
    out = [mx.nd.zeros((2,)), mx.nd.zeros((2,))]
    ts.broadcast(0, mx.nd.ones((2,)) * 7, out=out)
    assert [o.asnumpy().tolist() for o in out] == [[7.0, 7.0]] * 2


def test_push_sums_devices_and_replaces_without_updater():
    kv = mx.kv.create("device")
    kv.init(8, mx.nd.ones((2,)) * 5)
    kv.push(8, mx.nd.ones((2,)))
    assert _val(kv, 8) == [1.0, 1.0]                       # MXNet: the push replaces the value
    kv.push(8, [mx.nd.ones((2,), ctx=mx.cpu(i)) for i in range(4)])
    outs = [mx.nd.zeros((2,), ctx=mx.cpu(i)) for i in range(2)]
    kv.pull(8, out=outs)
    assert [o.asnumpy().tolist() for o in outs] == [[4.0, 4.0]] * 2 and outs[1].device == mx.cpu(1)
    kv.init([9, 10], [mx.nd.zeros((2,)), mx.nd.ones((2,))])
    kv.push([9, 10], [[mx.nd.ones((2,))] * 2, mx.nd.ones((2,)) * 3])
    assert (_val(kv, 9), _val(kv, 10)) == ([2.0, 2.0], [3.0, 3.0])


def test_pushpull_and_broadcast():
    kv = mx.kv.create()
    kv.init(3, mx.nd.zeros((2, 2)))
    v = [mx.nd.ones((2, 2)), mx.nd.ones((2, 2)) * 2]
    kv.pushpull(3, v)
    assert [x.asnumpy().tolist() for x in v] == [[[3.0, 3.0], [3.0, 3.0]]] * 2
    out = mx.nd.zeros((2, 2))
    kv.pushpull(3, [mx.nd.ones((2, 2))] * 2, out=out)
    assert out.asnumpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    outs = [mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))]
    kv.broadcast(13, mx.nd.ones((2, 2)) * 7, out=outs)
    assert [o.asnumpy().tolist() for o in outs] == [[[7.0, 7.0], [7.0, 7.0]]] * 2
    with pytest.raises(mx.MXNetError, match="duplicate init of key 13"):
        kv.broadcast(13, mx.nd.ones((2, 2)), out=outs)


def test_key_and_value_errors():
    kv = mx.kv.create()
    kv.init(3, mx.nd.zeros((2, 2)))
    with pytest.raises(mx.MXNetError, match="duplicate init of key 3"):
        kv.init(3, mx.nd.zeros((2, 2)))
    with pytest.raises(mx.MXNetError, match="key 4 has not been initialized"):
        kv.push(4, mx.nd.ones((2, 2)))
    with pytest.raises(mx.MXNetError, match="key 4 has not been initialized"):
        kv.pull(4, out=mx.nd.ones((2, 2)))
    with pytest.raises(mx.MXNetError, match="mixed key types are not allowed: this store uses int keys, got 'a'"):
        kv.init("a", mx.nd.zeros((2,)))
    with pytest.raises(mx.MXNetError, match="must be an int or a str, got 3.0"):
        kv.push(3.0, mx.nd.ones((2, 2)))
    with pytest.raises(mx.MXNetError, match=r"expected shape \(2, 2\) \(the initialized value\), got \(3, 2\)"):
        kv.push(3, mx.nd.ones((3, 2)))
    with pytest.raises(mx.MXNetError, match="expected one value .* for 2 keys, got 1 values"):
        kv.init([1, 2], [mx.nd.ones((1,))])
    with pytest.raises(mx.MXNetError, match="expected out"):
        kv.pull(3)


def test_row_sparse_pull_and_ignored_sparse_pull():
    kv = mx.kv.create()
    kv.init(12, mx.nd.array([[1, 2], [3, 4], [5, 6]]).tostype("row_sparse"))
    r = mx.nd.zeros((3, 2)).tostype("row_sparse")
    kv.row_sparse_pull(12, out=r, row_ids=mx.nd.array([[0], [2]]))
    assert r.stype == "row_sparse" and r.asnumpy().tolist() == [[1, 2], [0, 0], [5, 6]]
    outs = [mx.nd.zeros((3, 2)).tostype("row_sparse") for _ in range(2)]
    kv.row_sparse_pull(12, out=outs, row_ids=mx.nd.array([1]))        # one row_ids for every output
    assert [o.asnumpy().tolist() for o in outs] == [[[0, 0], [3, 4], [0, 0]]] * 2
    with pytest.raises(mx.MXNetError, match="expected row_sparse outputs, got storage type 'default'"):
        kv.row_sparse_pull(12, out=mx.nd.zeros((3, 2)), row_ids=mx.nd.array([1]))
    kv.init(14, mx.nd.ones((3, 2)))
    with pytest.raises(mx.MXNetError, match="expected a row_sparse value in the store"):
        kv.row_sparse_pull(14, out=r, row_ids=mx.nd.array([1]))
    rsp = (mx.nd.ones((3, 2)) * 9).tostype("row_sparse")
    kv.pull(14, out=rsp)                                              # ignored, as MXNet
    assert rsp.asnumpy().tolist() == [[9, 9]] * 3
    kv.pull(14, out=rsp, ignore_sparse=False)
    assert rsp.asnumpy().tolist() == [[1, 1]] * 3


def test_updater_gets_key_summed_value_and_held_value():
    seen = []

    def updater(key, recv, local):
        seen.append((key, recv.asnumpy().tolist(), local.device))
        local += recv

    for key in (5, "s"):
        kv = mx.kv.create("local")
        kv.init(key, mx.nd.ones((2,)))
        kv._set_updater(updater)
        kv.push(key, [mx.nd.ones((2,), ctx=mx.cpu(1)), mx.nd.ones((2,), ctx=mx.cpu(2))])
        assert _val(kv, key) == [3.0, 3.0]
    assert seen == [(5, [2.0, 2.0], mx.cpu(0)), ("s", [2.0, 2.0], mx.cpu(0))]


def test_set_optimizer_and_states_round_trip(tmp_path):
    kv = mx.kv.create("local")
    with pytest.raises(AssertionError, match="expected an optimizer on the store"):
        kv.save_optimizer_states(str(tmp_path / "x"))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.5))
    assert isinstance(kv._updater, mx.optimizer.Updater)
    kv.init(0, mx.nd.ones((2,)))
    kv.push(0, [mx.nd.ones((2,))] * 2)
    np.testing.assert_allclose(_val(kv, 0), [0.8, 0.8], rtol=1e-6)   # MXNet 1.9.1: [0.8 0.8]
    path = str(tmp_path / "kv.states")
    kv.save_optimizer_states(path, dump_optimizer=True)
    assert "__hybridlab_optimizer__" in mx.nd.load(path)
    mom = kv._updater.states[0].asnumpy().copy()
    kv._updater.states[0][:] = 0
    kv.load_optimizer_states(path)
    np.testing.assert_allclose(kv._updater.states[0].asnumpy(), mom)
    kv.push(0, [mx.nd.ones((2,))] * 2)                               # momentum -0.2*0.5 - 0.2
    np.testing.assert_allclose(_val(kv, 0), [0.5, 0.5], rtol=1e-6)


def test_two_bit_gradient_compression_matches_mxnet():
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(0, mx.nd.zeros((4,)))
    got = []
    for _ in range(3):
        kv.push(0, mx.nd.array([0.3, -0.3, 0.7, -2]))
        got.append(_val(kv, 0, (4,)))
    assert got == [[0, 0, 0.5, -0.5], [0.5, -0.5, 0.5, -0.5], [0, 0, 0.5, -0.5]]
    kv.init(1, mx.nd.zeros((4,)))
    got = []
    for _ in range(2):
        kv.push(1, [mx.nd.array([0.3, -0.3, 0.7, -2], ctx=mx.cpu(1)), mx.nd.array([0.3, 0.6, 0.1, 2], ctx=mx.cpu(2))])
        got.append(_val(kv, 1, (4,)))
    assert got == [[0, 0.5, 0.5, 0], [1, 0, 0.5, 0]]
    with pytest.raises(mx.MXNetError, match="Gradient compression is not supported for this type of kvstore"):
        mx.kv.create("local").set_gradient_compression({"type": "2bit", "threshold": 0.5})
    with pytest.raises(mx.MXNetError, match="Unknown type for gradient compression 1bit"):
        kv.set_gradient_compression({"type": "1bit"})
    with pytest.raises(mx.MXNetError, match="'type' is missing"):
        kv.set_gradient_compression({"threshold": 1})
    with pytest.raises(mx.MXNetError, match="threshold expected a number > 0, got -1"):
        kv.set_gradient_compression({"type": "2bit", "threshold": -1})
