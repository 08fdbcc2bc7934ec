"""Every registered op passes the shared checker (op_checker.py) on every available device."""
import pytest

import hybridlab as mx
from hybridlab.ops.registry import all_ops

from op_cases import all_cases
from op_checker import check_forward, check_gradient, check_inference

CASES = all_cases()
DEVICES = [pytest.param(mx.cpu(), id="cpu"),
           pytest.param(mx.gpu(0), id="gpu", marks=pytest.mark.skipif(
               mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed for gpu op checks)"))]


def test_every_registered_op_has_a_case():
    covered = {c.op for c in CASES}
    missing = sorted(op.name for op in all_ops() if op.name not in covered)
    assert not missing, f"registered ops without an op-checker case: {missing}"


def test_cases_name_registered_ops():
    names = {op.name for op in all_ops()}
    unknown = sorted({c.op for c in CASES} - names)
    assert not unknown, f"cases for ops that are not registered under that canonical name: {unknown}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(case, device):
    inputs, outs = check_forward(case, device)
    check_inference(case, inputs, outs)
    check_gradient(case, device)
