"""Measure hybridlab against MXNet 1.9.1's own unit tests, run unchanged from outside the repo.

MXNet's test files (``tests/python/unittest`` of an apache/mxnet checkout at tag 1.9.1, never copied
into this repo) run twice, file by file, under pytest with JUnit XML: once in real MXNet
(``.venv-mxnet``) and once with ``import mxnet`` resolving to hybridlab (a shim package put first
on ``PYTHONPATH`` maps every ``mxnet.X`` to ``hybridlab.X``). The report counts, per file, the tests
that pass in real MXNet and how many of those pass in hybridlab, and groups the rest by the first
line of their error.

    python tools/mxnet_unittests.py /path/to/mxnet/tests/python/unittest --out /tmp/mxrun
    python tools/mxnet_unittests.py DIR --out /tmp/mxrun --only hybridlab test_gluon.py   # one side, one file
    python tools/mxnet_unittests.py DIR --out /tmp/mxrun --report                        # re-read the XML

Both Pythons need pytest, pytest-timeout and pynose (MXNet's common.py imports nose) (a test running past ``--timeout`` seconds counts as
failed).
"""
import argparse
import collections
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the files issue 16 measures (test_deferred_compute.py comes from MXNet's master branch)
FILES = ["test_gluon.py", "test_autograd.py", "test_ndarray.py", "test_symbol.py", "test_module.py",
         "test_gluon_rnn.py", "test_loss.py", "test_optimizer.py", "test_gluon_trainer.py", "test_init.py",
         "test_gluon_data.py", "test_io.py", "test_operator.py", "test_numpy_ndarray.py", "test_numpy_op.py",
         "test_numpy_gluon.py", "test_executor.py", "test_infer_shape.py", "test_viz.py", "test_metric.py",
         "test_random.py", "test_profiler.py", "test_deferred_compute.py"]

SHIM = '''"""mxnet -> hybridlab: every ``mxnet.X`` imported is ``hybridlab.X`` (written by tools/mxnet_unittests.py)."""
import importlib
import importlib.abc
import importlib.machinery
import sys

import hybridlab


class _Existing(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _Alias(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("mxnet."):
            return None
        try:
            module = importlib.import_module("hybridlab" + name[len("mxnet"):])
        except ModuleNotFoundError:
            return None
        return importlib.machinery.ModuleSpec(name, _Existing(module), is_package=hasattr(module, "__path__"))


sys.meta_path.insert(0, _Alias())
sys.modules["mxnet"] = hybridlab
'''


def _shim(out):
    folder = os.path.join(out, "shim", "mxnet")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "__init__.py"), "w", encoding="utf-8") as f:
        f.write(SHIM)
    return os.path.dirname(folder)


def _run(side, python, tests, name, out, timeout, env):
    xml = os.path.join(out, side, name + ".xml")
    log = os.path.join(out, side, name + ".log")
    os.makedirs(os.path.dirname(xml), exist_ok=True)
    cmd = [python, "-m", "pytest", os.path.join(tests, name), "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--tb=line",
           f"--junitxml={xml}", f"--timeout={timeout}", "--rootdir", tests]
    with open(log, "w", encoding="utf-8") as f:
        subprocess.run(cmd, cwd=tests, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout * 40)
    if not os.path.exists(xml):
        _run_isolated(python, tests, name, xml, timeout, env)
    return side, name


def _run_isolated(python, tests, name, xml, timeout, env):
    """A file whose run crashed (real MXNet segfaults in a few tests): each test in a process of
    its own, the results merged into one XML; a crashed test counts as failed."""
    listed = subprocess.run([python, "-m", "pytest", name, "-q", "--collect-only", "-p", "no:cacheprovider",
                             "--rootdir", tests], cwd=tests, env=env, capture_output=True, text=True)
    suite = ET.Element("testsuite")
    for node in [line for line in listed.stdout.splitlines() if "::" in line]:
        part = xml + ".part"
        subprocess.run([python, "-m", "pytest", node, "-q", "-p", "no:cacheprovider", "--tb=line", f"--junitxml={part}",
                        f"--timeout={timeout}", "--rootdir", tests], cwd=tests, env=env,
                       capture_output=True, timeout=timeout * 2)
        cases = list(ET.parse(part).getroot().iter("testcase")) if os.path.exists(part) else []
        if not cases:
            case = ET.SubElement(suite, "testcase", classname=name[:-3], name=node.split("::")[-1])
            ET.SubElement(case, "failure", message="the test's process crashed")
        suite.extend(cases)
        if os.path.exists(part):
            os.remove(part)
    ET.ElementTree(suite).write(xml)


def _outcomes(xml):
    """{test id: (outcome, first line of the message)} from a JUnit XML file (an import error is one
    'collect' entry)."""
    if not os.path.exists(xml):
        return {"<no result>": ("failed", "pytest wrote no XML (crashed or timed out)")}
    result = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                message = (child.get("message") or child.text or "").strip().splitlines()
                message = message[0][:160] if message else child.tag
            elif child.tag == "skipped":
                outcome = "skipped"
        result[key] = (outcome, message)
    return result


def report(out, files):
    total_mx = total_both = 0
    causes = collections.Counter()
    lines = [f"{'file':32} {'pass in MXNet':>14} {'and hybridlab':>14} {'share':>7}"]
    for name in files:
        mx = _outcomes(os.path.join(out, "mxnet", name + ".xml"))
        hl = _outcomes(os.path.join(out, "hybridlab", name + ".xml"))
        passing = [k for k, (o, _) in mx.items() if o == "passed"]
        both = [k for k in passing if hl.get(k, ("missing",))[0] == "passed"]
        for k in passing:
            if k not in both:
                causes[(name, hl.get(k, ("missing", "not run in hybridlab (collection failed?)"))[1])] += 1
        total_mx += len(passing)
        total_both += len(both)
        share = f"{100 * len(both) / len(passing):.0f}%" if passing else "-"
        lines.append(f"{name:32} {len(passing):>14} {len(both):>14} {share:>7}")
    lines.append(f"{'all':32} {total_mx:>14} {total_both:>14} {100 * total_both / max(total_mx, 1):>6.1f}%")
    lines.append("\nfailing in hybridlab, passing in MXNet (count, file, first line of the error):")
    lines += [f"{n:5} {f}: {m}" for (f, m), n in causes.most_common()]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tests", help="MXNet's tests/python/unittest folder (tag 1.9.1)")
    parser.add_argument("files", nargs="*", default=FILES)
    parser.add_argument("--out", required=True, help="folder for the shim, the logs and the JUnit XML")
    parser.add_argument("--hybridlab-python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    parser.add_argument("--mxnet-python", default=os.path.join(ROOT, ".venv-mxnet", "bin", "python"))
    parser.add_argument("--only", choices=("hybridlab", "mxnet"), help="run one side only")
    parser.add_argument("--timeout", type=int, default=300, help="seconds a test may run")
    parser.add_argument("--report", action="store_true", help="only summarise the XML already in --out")
    args = parser.parse_intermixed_args()
    tests, out = os.path.abspath(args.tests), os.path.abspath(args.out)
    if not args.report:
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HYBRIDLAB_MXNET_PYTHON")}
        base["MXNET_HOME"] = os.path.join(out, "mxnet_home")
        sides = {"mxnet": (args.mxnet_python, base),
                 "hybridlab": (args.hybridlab_python, dict(base, PYTHONPATH=_shim(out)))}
        jobs = [(side, python, env) for side, (python, env) in sides.items() if args.only in (None, side)]
        with ThreadPoolExecutor(len(jobs)) as pool:
            # one worker per side, each going through the files in order
            def side_run(job):
                side, python, env = job
                for name in args.files:
                    _run(side, python, tests, name, out, args.timeout, env)
                    print(f"{side}: {name} done", flush=True)
            list(pool.map(side_run, jobs))
    print(report(out, args.files))


if __name__ == "__main__":
    sys.exit(main())
