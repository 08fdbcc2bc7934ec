"""Write the jest fixtures: the graph JSON the kernel produces for a few real models.

The frontend's tests (src/__tests__/fixtures.ts) draw these instead of hand-written graphs, so they
follow the kernel's graph JSON contract (docs/graph-json.md) as it is. ``tests/test_jest_fixtures.py``
regenerates them and fails when the checked-in files drift.

Usage::

    .venv/bin/python tools/dump_jest_fixtures.py             # refresh src/__tests__/fixtures/
    .venv/bin/python tools/dump_jest_fixtures.py --out DIR   # write them elsewhere

The models: ``mlp`` (the hybridize tutorial's MLP, 512 -> 256 relu -> 128 relu -> 2, input (1, 512)),
``convnet`` (a small conv net with a BatchNorm: parameters, auxiliary states, conv, pool, flatten),
``hostile`` (a block whose name holds HTML and a newline: the frontend must show it as text).

The output is deterministic: fixed block prefixes, a fresh process per run (name counters start at
zero), sorted keys, and node sources relative to the repository; a source line in the library
(``kernel_lib/``) becomes 0 so that unrelated edits there do not change the fixtures.
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "src", "__tests__", "fixtures")
HOSTILE = "<img src=x onerror=alert(1)>\nnet_"

sys.path.insert(0, os.path.join(ROOT, "kernel_lib"))

import hybridlab as mx  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402
from hybridlab.lab import graph_json  # noqa: E402


def mlp():
    """The hybridize tutorial's MLP on one sample of 512 features."""
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    return net, mx.nd.ones((1, 512))


def convnet():
    """Conv -> BatchNorm -> relu -> max pool -> flatten -> dense, on one 3x16x16 image."""
    net = nn.HybridSequential(prefix="convnet_")
    with net.name_scope():
        net.add(nn.Conv2D(4, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2), nn.Flatten(), nn.Dense(10))
    return net, mx.nd.ones((1, 3, 16, 16))


def hostile():
    """A block named with HTML and a newline: every node and scope name carries them."""
    net = nn.HybridSequential(prefix=HOSTILE)
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    return net, mx.nd.ones((1, 4))


MODELS = {"mlp": mlp, "convnet": convnet, "hostile": hostile}


def _relative(path):
    path = os.path.abspath(path) if os.path.isabs(path) or os.path.exists(path) else path
    if os.path.isabs(path) and path.startswith(ROOT + os.sep):
        return os.path.relpath(path, ROOT).replace(os.sep, "/")
    return path


def _normalise(graph):
    """Node sources relative to the repository, library lines as 0 (see the module docstring);
    the same inside the passes' and the backward graphs."""
    for node in graph["nodes"]:
        src = node.get("source")
        if src:
            src["file"] = _relative(src["file"])
            if src["file"].startswith("kernel_lib/"):
                src["line"] = 0
    for stage in graph.get("passes") or []:
        _normalise(stage["graph"])
    if graph.get("backward"):
        _normalise(graph["backward"])
    return graph


def fixture(name):
    """The graph JSON of model ``name`` after its first hybridized call, with its input's shape
    and dtype (as the GraphView sends it)."""
    mx.random.seed(0)
    net, x = MODELS[name]()
    net.initialize()
    net.hybridize()
    net(x)
    return _normalise(graph_json(net, shapes={"data": x.shape}, dtypes={"data": x.dtype}))


def dump(out_dir):
    """Write ``<name>.json`` for every model into ``out_dir``; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name in MODELS:
        path = os.path.join(out_dir, f"{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(fixture(name), f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        paths.append(path)
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output folder (default: src/__tests__/fixtures)")
    args = parser.parse_args(argv)
    for path in dump(args.out):
        print(path)


if __name__ == "__main__":
    main()
