"""Devices: cpu/gpu objects, the current-device stack, and a visible skip where no GPU exists."""
import pytest

import hybridlab as mx


def test_device_objects():
    assert repr(mx.cpu()) == "cpu(0)" and repr(mx.gpu(1)) == "gpu(1)"
    assert mx.cpu(0) == mx.Device("cpu", 0) and mx.gpu(0) != mx.cpu(0)
    assert mx.Context is mx.Device and mx.context.Context is mx.Device
    assert mx.Device.parse("gpu(2)") == mx.gpu(2)
    with pytest.raises(mx.MXNetError, match="device type"):
        mx.Device("tpu")


def test_current_device_stack():
    assert mx.device.current_device() == mx.cpu()
    with mx.cpu(1):
        assert mx.current_context() == mx.cpu(1)
        with mx.cpu(2):
            assert mx.device.current_device() == mx.cpu(2)
        assert mx.device.current_device() == mx.cpu(1)
    assert mx.context.current_context() == mx.cpu(0)


def test_num_gpus_is_an_int():
    assert isinstance(mx.device.num_gpus(), int) and mx.num_gpus() >= 0


@pytest.mark.skipif(mx.num_gpus() > 0, reason="this machine has a GPU")
def test_gpu_array_without_gpu_says_why():
    with pytest.raises(mx.MXNetError, match="CuPy"):
        mx.nd.ones((2,), ctx=mx.gpu(0))


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device: CuPy GPU arrays not checked")
def test_gpu_arrays_are_cupy():
    import cupy
    with mx.gpu(0):
        x = mx.nd.ones((2, 3))
        y = (x * 2).sum()
    assert isinstance(x._data, cupy.ndarray) and y.context == mx.gpu(0) and y.asscalar() == 12


def test_entering_one_device_twice_restores_the_outer_device():
    # nested non-hybridized blocks enter their input's device object again: the outer device must come back
    d = mx.gpu(0)
    with d:
        with d:
            assert mx.current_device() is d
        assert mx.current_device() is d
    assert mx.current_device() == mx.cpu()
    with mx.cpu():
        with mx.gpu(1):
            with mx.cpu():
                pass
            assert mx.current_device() == mx.gpu(1)
    assert mx.current_device() == mx.cpu()


def test_an_imperative_block_call_runs_on_its_input_device():
    """A non-hybridized block's ops run with its input's device current (arrays it creates land there),
    and the device current outside is back after the call, on the current device or another."""
    class Ones(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.zeros((2,)) + mx.device.current_device().device_id + x

    block = Ones()
    for outside, device in ((mx.cpu(0), mx.cpu(0)), (mx.cpu(0), mx.cpu(1)), (mx.cpu(1), mx.cpu(1)), (mx.cpu(2), mx.cpu(1))):
        with outside:
            out = block(mx.nd.ones((2,), ctx=device))
            assert out.context == device and out.asnumpy().tolist() == [1.0 + device.device_id] * 2
            assert mx.device.current_device() == outside
