"""Op-checker cases for the nn family: FullyConnected, Dropout, Embedding (ops/nn.py) and the
activations and softmax family (ops/activation.py). Loss layers are in ``loss_outputs.py``.

Random ops (Dropout, rrelu in training) re-create the generator ``mx.random.seed`` makes on the CPU
(``Generator(PCG64(seed))``); on a GPU ``gpu_check`` tests the structure of the output instead."""
import math

import numpy as np

from op_checker import Case

SEED = 11


def away_from_zero(shape, lo=0.2, hi=2.0):
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


def uniform01(shape, seed=SEED):
    return np.random.Generator(np.random.PCG64(seed)).random(shape)


f64 = np.float64


# ---- FullyConnected ----
def ref_fc(x, w, b=None, flatten=True, **a):
    x2 = x.reshape(x.shape[0], -1) if flatten else x
    out = np.einsum("...i,oi->...o", x2.astype(f64), w.astype(f64))
    return (out if b is None else out + b).astype(x.dtype)


# ---- activations ----
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(f64)))


ACT = {"relu": lambda x: np.maximum(x, 0), "sigmoid": sigmoid, "tanh": lambda x: np.tanh(x.astype(f64)),
       "softrelu": lambda x: np.log1p(np.exp(x.astype(f64))), "softsign": lambda x: x / (1 + np.abs(x))}

SELU_A, SELU_L = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
erf = np.vectorize(math.erf, otypes=[f64])


def ref_leaky(x, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125, upper_bound=0.334, train=False):
    x = x.astype(f64)
    if act_type == "leaky":
        y = np.where(x > 0, x, slope * x)
    elif act_type == "prelu":
        g = gamma.reshape((1, -1) + (1,) * (x.ndim - 2)) if gamma.size > 1 else gamma
        y = np.where(x > 0, x, g * x)
    elif act_type == "elu":
        y = np.where(x > 0, x, slope * (np.exp(x) - 1))
    elif act_type == "selu":
        y = SELU_L * np.where(x > 0, x, SELU_A * (np.exp(x) - 1))
    elif act_type == "gelu":
        y = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    else:  # rrelu: the output and the mask of slopes (MXNet: zeros outside training)
        s = lower_bound + (upper_bound - lower_bound) * uniform01(x.shape) if train else (lower_bound + upper_bound) / 2
        return np.where(x > 0, x, s * x), (s if train else np.zeros_like(x))
    return y


def ref_softmax(x, length=None, axis=-1, temperature=None, dtype=None, use_length=False, log=False, neg=False):
    z = x.astype(f64) * (-1 if neg else 1) / (temperature or 1.0)
    mask = np.ones_like(z, dtype=bool)
    if use_length:
        idx = np.arange(z.shape[axis]).reshape([-1 if i == axis % z.ndim else 1 for i in range(z.ndim)])
        mask = idx < np.expand_dims(length, axis)
    e = np.where(mask, np.exp(z - np.where(mask, z, -np.inf).max(axis, keepdims=True)), 0.0)
    p = e / e.sum(axis, keepdims=True)
    out = np.where(mask, np.log(np.where(mask, p, 1.0)), 0.0) if log else p
    return out.astype(dtype or x.dtype)


def ref_length_mask(x, length, axis=-1):
    idx = np.arange(x.shape[axis]).reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)])
    return np.broadcast_to(idx < np.expand_dims(length, axis), x.shape).astype(x.dtype)


def ref_softmax_activation(x, mode="instance"):
    return ref_softmax(x, axis=1 if mode == "channel" else -1)   # MXNet's instance mode: the last axis


# ---- Dropout ----
def ref_dropout(x, p=0.5, mode="training", axes=(), train=False, **a):
    if not (train or mode == "always") or p == 0:
        return x
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    mask = (uniform01(shape) <= 1 - p) / (1 - p)
    return (x * mask).astype(x.dtype)


def dropout_gpu_check(p):
    def check(got, x):
        y = got[0]
        kept = y != 0
        np.testing.assert_allclose(y[kept], (x / (1 - p))[kept], rtol=1e-5)
        assert 0 < kept.mean() < 1
    return check


def rrelu_gpu_check(got, x):
    y = got[0]
    pos = x > 0
    np.testing.assert_allclose(y[pos], x[pos], rtol=1e-6)
    slope = y[~pos] / x[~pos]
    assert np.all((slope >= 0.125 - 1e-6) & (slope <= 0.334 + 1e-6))


def embedding_ids(shape, n):
    return lambda rng: rng.integers(0, n, shape).astype(f64)


def ref_embedding_backward(data, ograd, input_dim, output_dim):
    out = np.zeros((input_dim, output_dim), dtype=f64)
    np.add.at(out, np.clip(data.astype(int), 0, input_dim - 1).reshape(-1), ograd.reshape(-1, output_dim))
    return out.astype(ograd.dtype)


X23 = away_from_zero((2, 3))
X234 = away_from_zero((2, 3, 4))

CASES = [
    # FullyConnected
    Case("FullyConnected", [(2, 3), (4, 3), (4,)], attrs={"num_hidden": 4}, ref=ref_fc),
    Case("FullyConnected", [(2, 2, 3), (4, 6), (4,)], attrs={"num_hidden": 4}, ref=ref_fc, name="flatten_3d"),
    Case("FullyConnected", [(3, 4), (2, 4)], attrs={"num_hidden": 2, "no_bias": True}, ref=ref_fc, name="no_bias"),
    Case("FullyConnected", [(2, 2, 3), (4, 3), (4,)], attrs={"num_hidden": 4, "flatten": False}, ref=ref_fc,
         name="flatten_false"),
    Case("FullyConnected", [(2, 3, 2), (2, 2)], attrs={"num_hidden": 2, "flatten": False, "no_bias": True},
         ref=ref_fc, name="flatten_false_no_bias"),
    # Activation
    *[Case("Activation", [X23], attrs={"act_type": act}, ref=lambda x, act_type, f=f: f(x), name=act)
      for act, f in ACT.items()],
    # LeakyReLU
    Case("LeakyReLU", [X23], ref=ref_leaky, name="leaky_default"),
    Case("LeakyReLU", [X23], attrs={"act_type": "leaky", "slope": 0.1}, ref=ref_leaky, name="leaky"),
    Case("LeakyReLU", [X234, lambda rng: rng.uniform(0.1, 0.5, 3)], attrs={"act_type": "prelu"},
         ref=ref_leaky, name="prelu_channel"),
    Case("LeakyReLU", [X23, np.array([0.3])], attrs={"act_type": "prelu"}, ref=ref_leaky, name="prelu_shared"),
    Case("LeakyReLU", [X23], attrs={"act_type": "elu", "slope": 0.7}, ref=ref_leaky, name="elu"),
    Case("LeakyReLU", [X23], attrs={"act_type": "selu"}, ref=ref_leaky, name="selu"),
    Case("LeakyReLU", [(2, 3)], attrs={"act_type": "gelu"}, ref=ref_leaky, name="gelu"),
    Case("LeakyReLU", [X23], attrs={"act_type": "rrelu"}, ref=ref_leaky, name="rrelu_predict"),
    Case("LeakyReLU", [X23], attrs={"act_type": "rrelu"}, ref=lambda x, **a: ref_leaky(x, train=True, **a),
         train=True, seed=SEED, gpu_check=rrelu_gpu_check, name="rrelu_train"),
    # softmax family
    Case("softmax", [(2, 3)], ref=ref_softmax),
    Case("softmax", [(3, 2)], attrs={"axis": 0, "temperature": 2.0}, ref=ref_softmax, name="axis0_temperature"),
    Case("softmax", [(2, 3)], attrs={"dtype": "float64"}, ref=ref_softmax, name="dtype_float64"),
    Case("softmax", [(2, 4), np.array([2, 4], dtype=np.int32)], attrs={"use_length": True}, ref=ref_softmax,
         name="use_length"),
    Case("softmax", [(3, 2, 2), np.array([[1, 3], [2, 2]], dtype=np.int64)], attrs={"use_length": True, "axis": 0},
         ref=ref_softmax, name="use_length_axis0"),
    Case("log_softmax", [(2, 3)], ref=lambda x, **a: ref_softmax(x, log=True, **a)),
    Case("_backward_log_softmax", [(2, 3), (2, 3)], ref=lambda g, y, axis=-1: g - np.exp(y) * g.sum(axis, keepdims=True)),
    Case("_backward_log_softmax", [(2, 3, 2), (2, 3, 2)], attrs={"axis": 1}, name="axis1",
         ref=lambda g, y, axis=-1: g - np.exp(y) * g.sum(axis, keepdims=True)),
    Case("log_softmax", [(2, 3, 2)], attrs={"axis": 1, "temperature": 0.5},
         ref=lambda x, **a: ref_softmax(x, log=True, **a), name="axis1_temperature"),
    Case("log_softmax", [(2, 4), np.array([3, 1], dtype=np.int32)], attrs={"use_length": True},
         ref=lambda x, length, **a: ref_softmax(x, length, log=True, **a), name="use_length"),
    Case("softmin", [(2, 3)], ref=lambda x, **a: ref_softmax(x, neg=True, **a)),
    Case("softmin", [(2, 3)], attrs={"axis": 0, "temperature": 3.0},
         ref=lambda x, **a: ref_softmax(x, neg=True, **a), name="axis0_temperature"),
    Case("_length_mask", [(2, 4), np.array([1, 3], dtype=np.int32)], ref=ref_length_mask, grad=()),
    Case("SoftmaxActivation", [(2, 2, 3)], ref=ref_softmax_activation),
    Case("SoftmaxActivation", [(2, 3, 2, 2)], ref=ref_softmax_activation, name="4d"),
    Case("SoftmaxActivation", [(2, 5)], ref=ref_softmax_activation, name="2d"),
    Case("SoftmaxActivation", [(2, 3, 2)], attrs={"mode": "channel"}, ref=ref_softmax_activation, name="channel"),
    # Dropout
    Case("Dropout", [(2, 3)], ref=ref_dropout, name="predict"),
    Case("Dropout", [(4, 5)], attrs={"p": 0.4}, ref=lambda x, **a: ref_dropout(x, train=True, **a), train=True,
         seed=SEED, gpu_check=dropout_gpu_check(0.4), name="train"),
    Case("Dropout", [(3, 4, 2)], attrs={"p": 0.5, "axes": (1,)}, ref=lambda x, **a: ref_dropout(x, train=True, **a),
         train=True, seed=SEED, gpu_check=dropout_gpu_check(0.5), name="train_axes"),
    Case("Dropout", [(3, 4)], attrs={"p": 0.25, "mode": "always"}, ref=ref_dropout, seed=SEED,
         gpu_check=dropout_gpu_check(0.25), name="always_in_predict"),
    # Embedding
    Case("Embedding", [embedding_ids((2, 3), 5), (5, 4)], attrs={"input_dim": 5, "output_dim": 4}, grad=(1,),
         ref=lambda d, w, **a: w[d.astype(int)]),
    Case("Embedding", [lambda rng: np.array([0, 4, 7]), (5, 2)], attrs={"input_dim": 5, "output_dim": 2}, grad=(1,),
         ref=lambda d, w, **a: w[np.clip(d, 0, 4)], name="int_ids_clipped"),
    Case("_backward_Embedding", [lambda rng: np.array([[0.0, 2.0, 2.0], [3.0, 0.0, 2.0]]), (2, 3, 2)],
         attrs={"input_dim": 4, "output_dim": 2}, grad=(1,), ref=ref_embedding_backward),
]
