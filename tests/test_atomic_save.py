"""Saves are atomic and leave nothing behind: a save killed at any moment leaves the target loadable
(old or new content), the next save removes the killed one's temporary file (but never a live
save's, nor anything else), every failure path removes its temporary file, and every save API goes
through ``hybridlab.fileio.write_atomic``."""
import errno
import importlib.util
import os
import pathlib
import random
import re
import resource
import stat
import subprocess
import sys

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import fileio, gluon
from hybridlab.fileio import stale_temp_files, write_atomic

ROOT = pathlib.Path(__file__).resolve().parents[1]
posix_only = pytest.mark.skipif(os.name != "posix", reason="fork, SIGKILL and flock are POSIX")


def _tool():
    spec = importlib.util.spec_from_file_location("kill_during_save", ROOT / "tools" / "kill_during_save.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_temp(target, token="0123456789abcdef"):
    return target.parent / f".{target.name}.{token}.tmp"


# ---- SIGKILL at random moments -------------------------------------------------------------------
@posix_only
def test_kill_during_save_every_kind(tmp_path):
    tool = _tool()
    rng = random.Random(12)
    all_stats = []
    for kind in tool.KINDS:
        folder = tmp_path / kind.replace(".", "_")
        folder.mkdir()
        stats = tool.run_kind(kind, kills=5, size_mb=3, folder=str(folder), rng=rng)
        all_stats.append(stats)
        assert stats["errors"] == [], (kind, stats["errors"])
        assert stats["kills"] == stats["loadable"] == 5
        assert stats["max_temps"] <= 1           # an older killed save's file was cleaned
        assert stats["leftovers"] == 0
        targets = tool.targets(kind, str(folder))
        assert sorted(os.listdir(folder)) == sorted(os.path.basename(t) for t in targets)
    # the kills did land inside writes (otherwise this test would prove nothing)
    assert sum(s["mid_write"] for s in all_stats) >= 2, tool.report(all_stats)
    # the user-level loaders read the final files
    width = tool.width_for(3)
    net = tool.build_net(width)
    net.load_parameters(str(tmp_path / "save_parameters" / "model.params"))
    assert all(np.all(p.data().asnumpy() == 1.0) for p in net.collect_params().values())
    exp = str(tmp_path / "export" / "model")
    block = gluon.SymbolBlock.imports(exp + "-symbol.json", ["data"], exp + "-0000.params")
    assert block(mx.nd.ones((1, width))).shape == (1, width)


# ---- failure paths leave nothing -----------------------------------------------------------------
@pytest.fixture
def saved(tmp_path):
    target = tmp_path / "w.params"
    mx.nd.save(str(target), {"a": mx.nd.ones((3,))})
    return target, target.read_bytes()


def _assert_untouched(target, raw):
    assert os.listdir(target.parent) == [target.name]
    assert target.read_bytes() == raw


@pytest.mark.parametrize("exc", [ValueError("bad piece"), KeyboardInterrupt()])
def test_exception_from_pieces_leaves_nothing(saved, exc):
    target, raw = saved
    closed = []

    def pieces():
        try:
            yield b"x" * 100000
            raise exc
        finally:
            closed.append(True)

    with pytest.raises(type(exc)):
        write_atomic(target, pieces())
    _assert_untouched(target, raw)
    assert closed


def test_bad_piece_type_and_unsupported_dtype_leave_nothing(saved):
    target, raw = saved
    with pytest.raises(TypeError):
        write_atomic(target, [b"ok", 42])
    with pytest.raises(mx.MXNetError):
        mx.nd.save(str(target), [mx.nd.ones((2,), dtype="complex64")])
    _assert_untouched(target, raw)


@posix_only
def test_write_error_file_too_large_leaves_nothing(saved):
    # RLIMIT_FSIZE makes write() fail with EFBIG (Python ignores SIGXFSZ): a disk-full that works as root
    target, raw = saved
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, hard))
    try:
        with pytest.raises(mx.MXNetError, match=r"cannot save NDArray file .*w\.params.*too large"):
            mx.nd.save(str(target), {"a": mx.nd.ones((1 << 20,))})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    _assert_untouched(target, raw)


def _fail(err):
    def f(*args, **kwargs):
        raise err
    return f


@pytest.mark.parametrize("name, err, match", [
    ("fsync", OSError(errno.ENOSPC, "No space left on device"), "No space left"),
    ("fchmod", PermissionError(errno.EPERM, "Operation not permitted"), "not permitted"),
    ("replace", OSError(errno.EXDEV, "Invalid cross-device link"), "cross-device"),
])
def test_os_errors_leave_nothing(saved, monkeypatch, name, err, match):
    target, raw = saved
    if not hasattr(os, name):
        pytest.skip(f"no os.{name} here")
    monkeypatch.setattr(os, name, _fail(err))
    with pytest.raises(mx.MXNetError, match=match):
        mx.nd.save(str(target), {"a": mx.nd.zeros((1000,))})
    monkeypatch.undo()
    _assert_untouched(target, raw)


def test_target_is_a_folder_or_folder_missing(tmp_path):
    (tmp_path / "d.params").mkdir()
    with pytest.raises(mx.MXNetError, match=r"d\.params.*is a folder"):
        mx.nd.save(str(tmp_path / "d.params"), [mx.nd.ones((2,))])
    with pytest.raises(mx.MXNetError, match=r"folder .*nope.* does not exist"):
        mx.sym.var("x").save(str(tmp_path / "nope" / "x.json"))
    assert os.listdir(tmp_path) == ["d.params"] and os.listdir(tmp_path / "d.params") == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder(saved):
    target, raw = saved
    os.chmod(target.parent, 0o555)
    try:
        with pytest.raises(mx.MXNetError, match="cannot save"):
            mx.nd.save(str(target), [mx.nd.ones((2,))])
    finally:
        os.chmod(target.parent, 0o755)
    _assert_untouched(target, raw)


# ---- permissions, folder sync ---------------------------------------------------------------------
@posix_only
def test_permissions_kept_and_new_file_follows_umask(tmp_path, saved):
    target, _ = saved
    os.chmod(target, 0o604)
    mx.nd.save(str(target), [mx.nd.ones((2,))])
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o604
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640


@posix_only
def test_folder_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    events, real_fsync, real_replace = [], os.fsync, os.replace

    def fsync(fd):
        events.append("fsync dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        return real_fsync(fd)

    def replace(a, b):
        events.append("replace")
        return real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "a.bin", b"abc")
    assert events == ["fsync file", "replace", "fsync dir"]


@posix_only
def test_folder_fsync_errors(tmp_path, monkeypatch):
    real_fsync = os.fsync

    def fsync_dir_fails(code):
        def fsync(fd):
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise OSError(code, os.strerror(code))
            return real_fsync(fd)
        return fsync

    monkeypatch.setattr(os, "fsync", fsync_dir_fails(errno.EINVAL))   # filesystem cannot sync folders
    write_atomic(tmp_path / "a.bin", b"one")
    assert (tmp_path / "a.bin").read_bytes() == b"one"
    monkeypatch.setattr(os, "fsync", fsync_dir_fails(errno.EIO))
    with pytest.raises(mx.MXNetError, match="could not sync its folder"):
        write_atomic(tmp_path / "a.bin", b"two")
    assert os.listdir(tmp_path) == ["a.bin"] and (tmp_path / "a.bin").read_bytes() == b"two"


# ---- stale temporary files: only ours, only dead ones --------------------------------------------
def test_stale_temp_of_the_same_target_is_removed(saved):
    target, _ = saved
    stale = _fake_temp(target)
    stale.write_bytes(b"half a file")
    assert stale_temp_files(target) == [str(stale)]
    mx.nd.save(str(target), [mx.nd.ones((2,))])
    assert os.listdir(target.parent) == [target.name]


@posix_only
def test_only_exact_pattern_regular_own_files_are_removed(tmp_path, saved):
    target, _ = saved
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.bin"
    victim.write_bytes(b"keep me")
    keep = [f".{target.name}.0123456789abcde.tmp",        # 15 digits
            f".{target.name}.0123456789ABCDEF.tmp",       # not our lower-case hex
            f".{target.name}.0123456789abcdef.tmp.bak",
            f"{target.name}.0123456789abcdef.tmp",        # no leading dot
            f".x{target.name}.0123456789abcdef.tmp",      # another target's
            ".w.0123456789abcdef.tmp",                    # the target "w"
            "w.params.tmp"]
    for name in keep:
        (tmp_path / name).write_bytes(b"user data")
    os.symlink(victim, _fake_temp(target, "1" * 16))      # a link: neither it nor its target go
    _fake_temp(target, "2" * 16).mkdir()                   # a folder
    os.mkfifo(_fake_temp(target, "3" * 16))                # a FIFO: must not hang the save
    os.link(victim, _fake_temp(target, "4" * 16))          # a second name of another file
    if os.geteuid() == 0:
        foreign = _fake_temp(target, "5" * 16)
        foreign.write_bytes(b"another user's save")
        os.chown(foreign, 12345, 12345)
    before = sorted(os.listdir(tmp_path))
    mx.nd.save(str(target), [mx.nd.ones((2,))])
    assert sorted(os.listdir(tmp_path)) == before
    assert victim.read_bytes() == b"keep me"


@posix_only
def test_temp_locked_by_a_live_process_is_kept(saved):
    target, _ = saved
    live = _fake_temp(target, "abcdef" + "0" * 10)
    live.write_bytes(b"being written")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys\nf = open(sys.argv[1], 'rb')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True)\nsys.stdin.read()", str(live)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        mx.nd.save(str(target), {"a": mx.nd.full((2,), 7.0)})
        assert sorted(os.listdir(target.parent)) == sorted([target.name, live.name])
        assert live.read_bytes() == b"being written"
        assert mx.nd.load(str(target))["a"].asnumpy().tolist() == [7.0, 7.0]
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    mx.nd.save(str(target), [mx.nd.ones((2,))])          # its holder is gone: now it is stale
    assert os.listdir(target.parent) == [target.name]


@posix_only
def test_writer_retries_when_a_cleaner_took_its_fresh_file(tmp_path, monkeypatch):
    real = fileio._fcntl
    calls = []

    class Flaky:
        LOCK_EX, LOCK_NB = real.LOCK_EX, real.LOCK_NB

        @staticmethod
        def flock(fd, op):
            calls.append(op)
            if len(calls) == 1:
                raise BlockingIOError(errno.EWOULDBLOCK, "busy")   # a cleaner holds it
            return real.flock(fd, op)

    monkeypatch.setattr(fileio, "_fcntl", Flaky)
    write_atomic(tmp_path / "a.bin", b"data")
    assert len(calls) == 2 and os.listdir(tmp_path) == ["a.bin"]


def test_without_fcntl_saves_still_work(tmp_path, monkeypatch):
    monkeypatch.setattr(fileio, "_fcntl", None)
    write_atomic(tmp_path / "a.bin", b"one")
    write_atomic(tmp_path / "a.bin", [b"t", b"wo"])
    assert os.listdir(tmp_path) == ["a.bin"] and (tmp_path / "a.bin").read_bytes() == b"two"


def test_long_target_name(tmp_path):
    target = tmp_path / ("n" * 240 + ".params")
    mx.nd.save(str(target), [mx.nd.ones((2,))])
    stem = fileio._temp_stem(target.name)
    assert len(stem) < 100
    stale = tmp_path / f".{stem}.{'9' * 16}.tmp"
    stale.write_bytes(b"x")
    assert stale_temp_files(target) == [str(stale)]
    mx.nd.save(str(target), [mx.nd.ones((3,))])
    assert os.listdir(tmp_path) == [target.name] and mx.nd.load(str(target))[0].shape == (3,)


# ---- every save API goes through write_atomic -----------------------------------------------------
def _module():
    out = mx.sym.BatchNorm(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc"), name="bn")
    mod = mx.mod.Module(out, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (2, 3))])
    mod.init_params()
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.1), ("momentum", 0.9)))
    return mod


def test_every_save_api_renames_a_temp_file_into_place(tmp_path, monkeypatch):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, in_units=3), gluon.nn.BatchNorm(in_channels=4))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 3)))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    mod = _module()
    p = str(tmp_path) + "/"
    saves = {
        "nd.save": (lambda: mx.nd.save(p + "a.nd", {"x": mx.nd.ones((2,))}), ["a.nd"]),
        "npx.save": (lambda: mx.npx.save(p + "a.npx", mx.np.ones((2,))), ["a.npx"]),
        "save_parameters": (lambda: net.save_parameters(p + "net.params"), ["net.params"]),
        "ParameterDict.save": (lambda: net.collect_params().save(p + "pd.params"), ["pd.params"]),
        "export": (lambda: net.export(p + "exp", 2), ["exp-symbol.json", "exp-0002.params"]),
        "Block.save": (lambda: net.save(p + "blk"), ["blk-model.json", "blk-model.params"]),
        "sym.save": (lambda: mx.sym.var("x").save(p + "s.json"), ["s.json"]),
        "mx.model.save_checkpoint": (lambda: mx.model.save_checkpoint(p + "ck", 1, mod.symbol, *mod.get_params()),
                                     ["ck-symbol.json", "ck-0001.params"]),
        "Module.save_checkpoint": (lambda: mod.save_checkpoint(p + "mod", 3, save_optimizer_states=True),
                                   ["mod-symbol.json", "mod-0003.params", "mod-0003.states"]),
        "Module.save_params": (lambda: mod.save_params(p + "mp.params"), ["mp.params"]),
        "Trainer.save_states": (lambda: trainer.save_states(p + "t.states"), ["t.states"]),
    }
    real_replace = os.replace
    for api, (save, files) in saves.items():
        renamed = []
        monkeypatch.setattr(os, "replace", lambda a, b: (renamed.append((a, b)), real_replace(a, b))[1])
        save()
        monkeypatch.undo()
        assert sorted(os.path.basename(b) for _, b in renamed) == sorted(files), api
        for src, dst in renamed:
            name = os.path.basename(dst)
            assert re.fullmatch(r"\." + re.escape(name) + r"\.[0-9a-f]{16}\.tmp", os.path.basename(src)), (api, src)
            assert os.path.dirname(src) == os.path.dirname(os.path.abspath(dst))
        for name in files:                                 # a kill-and-resave finds and removes a stale one
            stale = _fake_temp(tmp_path / name)
            stale.write_bytes(b"killed")
        save()
        assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")], api

