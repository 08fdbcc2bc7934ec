"""The MXNet 1.9.1 half of conv_paths.py, run by ``$HYBRIDLAB_MXNET_PYTHON`` (a separate venv: MXNet
1.9.1 needs NumPy < 1.24; its pip wheel runs convolutions on oneDNN). Times the model zoo's forward
(hybridized, static_alloc + static_shape, random weights) for the networks and batch sizes named on
the command line and prints one JSON object: ``{"forward": {"<net>/<batch>": seconds}, ...}``.

Run: python _mxnet_conv_side.py ROUNDS SIZE NET:BATCH[,NET:BATCH...]
"""
import json
import sys
import timeit

import numpy as np


def best(fn, number, rounds):
    """Best seconds per call over ``rounds`` timings of ``number`` calls, after one warm-up call."""
    fn()
    return min(timeit.timeit(fn, number=number) / number for _ in range(rounds))


def main():
    rounds, size = int(sys.argv[1]), int(sys.argv[2])
    jobs = [job.split(":") for job in sys.argv[3].split(",")]
    import mxnet as mx
    from mxnet.gluon.model_zoo import vision
    res = {"version": mx.__version__, "mkldnn": mx.runtime.Features().is_enabled("MKLDNN"), "forward": {}}
    nets = {}
    for name, batch in jobs:
        if name not in nets:
            net = vision.get_model(name)
            net.initialize(mx.init.Xavier())
            net.hybridize(static_alloc=True, static_shape=True)
            nets[name] = net
        x = mx.nd.array(np.random.default_rng(0).standard_normal((int(batch), 3, size, size)).astype(np.float32))
        res["forward"][f"{name}/{batch}"] = best(lambda: nets[name](x).wait_to_read(), 1, rounds)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
