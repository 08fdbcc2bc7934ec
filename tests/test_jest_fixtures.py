"""The jest fixtures (src/__tests__/fixtures/*.json) are the kernel's graph JSON of real models,
written by tools/dump_jest_fixtures.py: regenerate them and compare, so the frontend's tests follow
the graph JSON the kernel produces."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "dump_jest_fixtures.py")
FIXTURES = os.path.join(ROOT, "src", "__tests__", "fixtures")
REFRESH = ("refresh them with `.venv/bin/python tools/dump_jest_fixtures.py` and check the jest tests "
           "(`.venv/bin/jlpm test`)")


def _read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def _json_files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(".json"))


def test_the_checked_in_fixtures_are_what_the_kernel_writes(tmp_path):
    # a fresh process: block name counters start at zero, as when the fixtures were written
    run = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    fresh = _json_files(tmp_path)
    assert fresh == _json_files(FIXTURES), f"the fixtures in src/__tests__/fixtures/ are not the models' set: {REFRESH}"
    drifted = [n for n in fresh if _read(tmp_path, n) != _read(FIXTURES, n)]
    assert not drifted, f"the kernel's graph JSON changed for {drifted}: {REFRESH}"


def test_the_fixtures_are_portable_and_keep_the_hostile_name():
    for name in _json_files(FIXTURES):
        text = _read(FIXTURES, name)
        assert ROOT not in text, f"{name} holds an absolute path of this checkout"
    hostile = json.loads(_read(FIXTURES, "hostile.json"))
    assert all("<img src=x onerror=alert(1)>\n" in n["name"] for n in hostile["nodes"] if not n["is_input"])
