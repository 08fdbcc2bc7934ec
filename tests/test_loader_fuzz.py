"""Every loader of untrusted files, fed mutated real MXNet files, answers only MXNetError, quickly and
with bounded memory (tests/loader_fuzz.py holds the mutators and loaders; tools/fuzz_loaders.py runs
long campaigns). Derandomized: CI sees the same cases every run; the long runs explore new ones."""
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import loader_fuzz as lf

CASES = 250   # per loader: a few seconds each here


@pytest.fixture(scope="module")
def fuzz_dir():
    path = tempfile.mkdtemp(prefix="hybridlab-fuzz-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(lf.LOADERS))
def test_mutated_files_give_only_mxnet_errors(name, fuzz_dir):
    bad = []

    @settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2 ** 63 - 1))
    def case(seed):
        out = lf.run_case(lf.LOADERS[name], lf.rng_for(seed), fuzz_dir)
        if out.bad:
            bad.append(f"{name}:{seed} {out.label}: {out.bad}")

    case()
    assert not bad, (f"{len(bad)} of {CASES} cases failed (replay one with "
                     f"`python tools/fuzz_loaders.py --replay LOADER:SEED`):\n" + "\n".join(bad[:10]))


def test_the_fuzz_reaches_past_the_header(fuzz_dir):
    """The mutators are not all refused at the first byte: some cases load, some are refused deep
    in a record (the fuzz would prove nothing if every case died on the magic number)."""
    kinds = [lf.run_case(lf.LOADERS["nd.load"], lf.rng_for(s), fuzz_dir).kind for s in range(200)]
    assert kinds.count("ok") >= 10 and kinds.count("refused") >= 50


def test_hostile_cases_are_detected(fuzz_dir):
    """The harness itself: a crash, a hang and a memory bomb are reported as failures."""
    def crash(folder):
        raise IndexError("tuple index out of range")

    def hang(folder):
        while True:
            pass

    def bomb(folder):
        bytearray(64 << 20)

    seeds = lambda tmpdir: [{"w.params": b"\0" * 64}]   # noqa: E731
    for load, word in [(crash, "IndexError"), (hang, "over"), (bomb, "allocated")]:
        out = lf.run_case(lf.Loader("probe", seeds, load), lf.rng_for(0), fuzz_dir, time_limit=0.5)
        assert word in out.bad
