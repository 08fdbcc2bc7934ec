"""Hand-written NumPy versions of the tutorial MLP (512 -> 256 relu -> 128 relu -> 2): the floor the
benchmarks compare against. Pure NumPy, so both the hybridlab process and the MXNet side process
(NumPy 1.23) import it; ``p`` is ``{"w0", "b0", "w1", "b1", "w2", "b2"}`` float32 arrays."""
import numpy as np


def mlp_forward(p):
    w0, b0, w1, b1, w2, b2 = (p[k] for k in ("w0", "b0", "w1", "b1", "w2", "b2"))

    def forward(x):
        h = np.maximum(x @ w0.T + b0, 0)
        h = np.maximum(h @ w1.T + b1, 0)
        return h @ w2.T + b2
    return forward


def mlp_train_step(p, x, y, lr=0.01):
    """One SGD step of softmax cross-entropy (mean over the batch), updating ``p`` in place."""
    onehot = np.eye(p["w2"].shape[0], dtype=np.float32)[y.astype(np.int64)]

    def step():
        h0 = x @ p["w0"].T + p["b0"]
        a0 = np.maximum(h0, 0)
        h1 = a0 @ p["w1"].T + p["b1"]
        a1 = np.maximum(h1, 0)
        z = a1 @ p["w2"].T + p["b2"]
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        sm = e / e.sum(axis=1, keepdims=True)
        loss = -np.log((sm * onehot).sum(axis=1)).mean()
        g = (sm - onehot) / x.shape[0]
        grads = {"w2": g.T @ a1, "b2": g.sum(0)}
        g = (g @ p["w2"]) * (h1 > 0)
        grads.update(w1=g.T @ a0, b1=g.sum(0))
        g = (g @ p["w1"]) * (h0 > 0)
        grads.update(w0=g.T @ x, b0=g.sum(0))
        for k, v in grads.items():
            p[k] -= lr * v
        return loss
    return step
