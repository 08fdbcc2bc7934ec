"""Start the workers of a distributed run: ``python -m hybridlab.launch -n 2 train.py [args]``.

Each worker is one process of an MPI world started by Open MPI's ``mpirun``; inside, the
'dist_sync' / 'dist_device_sync' kvstores (``mx.kv.create``, ``Trainer(kvstore='dist_sync')``,
``Module.fit(kvstore='dist_sync')``) add gradients over the workers, and ``kv.rank`` /
``kv.num_workers`` say which shard of the data a worker reads. What the launcher adds to ``mpirun``:

* on one machine (no hostfile): ``-n`` processes on localhost, allowed to outnumber the cores
  (``--oversubscribe``), not pinned to cores, with ``OMP_NUM_THREADS`` set to cores / workers
  unless it is set, so that the workers' BLAS threads do not fight over the cores;
* on a cluster: ``--hostfile FILE`` (Open MPI's format, ``node1 slots=4`` per line; the same
  Python environment and script path on every node; ``PYTHONPATH`` and ``OMP_NUM_THREADS`` are
  exported to the remote workers);
* ``--timeout SECONDS``: the whole run is stopped past it (a stuck run never hangs a caller);
* as root (containers, CI) ``--allow-run-as-root``.

When one worker fails or is killed, ``mpirun`` stops the others and exits non-zero; the launcher
then says so in one line after ``mpirun``'s own report, and exits with its code.

Example (the command it runs)::

    >>> from hybridlab.launch import command
    >>> cmd = command('train.py', 2, ['--epochs', '1'], python='python3', mpirun='mpirun', root=False)
    >>> ' '.join(cmd)
    'mpirun -n 2 --host localhost:2 --oversubscribe --bind-to none -x PYTHONPATH -x OMP_NUM_THREADS python3 -u train.py --epochs 1'
"""
import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["command", "run", "main"]


def command(script, num_workers, args=(), hostfile=None, timeout=None, python=None, mpirun=None, root=None):
    """The ``mpirun`` command line that starts ``num_workers`` workers running ``script args``."""
    if not isinstance(num_workers, int) or num_workers < 1:
        raise ValueError(f"hybridlab.launch: expected a number of workers >= 1, got {num_workers!r}")
    mpirun = mpirun or shutil.which("mpirun")
    if mpirun is None:
        raise FileNotFoundError("hybridlab.launch: expected Open MPI's mpirun on PATH (Debian: apt-get install "
                                "openmpi-bin libopenmpi-dev), got none")
    cmd = [mpirun, "-n", str(num_workers)]
    if hostfile:
        cmd += ["--hostfile", str(hostfile)]
    else:
        cmd += ["--host", f"localhost:{num_workers}", "--oversubscribe"]
    cmd += ["--bind-to", "none", "-x", "PYTHONPATH", "-x", "OMP_NUM_THREADS"]
    if timeout is not None:
        cmd += ["--timeout", str(int(timeout))]
    if (os.geteuid() == 0) if root is None else root:
        cmd += ["--allow-run-as-root"]
    return cmd + [python or sys.executable, "-u", str(script)] + [str(a) for a in args]


def _environment(num_workers, env=None):
    env = dict(os.environ if env is None else env)
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // num_workers)))
    env.setdefault("PYTHONPATH", "")
    # Open MPI in containers: no cross-memory attach (ptrace is usually forbidden there)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return env


def run(script, num_workers=2, args=(), hostfile=None, timeout=None, env=None, capture=True):
    """Run ``script`` on ``num_workers`` workers and wait: a ``subprocess.CompletedProcess`` (its
    ``stdout`` holds every worker's output, ``stderr`` mpirun's reports when ``capture``). For
    notebooks and tests; the command line is ``python -m hybridlab.launch``."""
    cmd = command(script, num_workers, args, hostfile, timeout)
    wait = None if timeout is None else timeout + 30      # mpirun's own --timeout acts first
    return subprocess.run(cmd, env=_environment(num_workers, env), capture_output=capture, text=True,
                          timeout=wait, check=False)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m hybridlab.launch",
                                     description="Run a training script on several workers (MPI processes) "
                                                 "sharing a 'dist_sync' kvstore.")
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="how many workers")
    parser.add_argument("--hostfile", help="Open MPI hostfile for a cluster (default: all on this machine)")
    parser.add_argument("--timeout", type=int, help="stop the whole run after this many seconds")
    parser.add_argument("script", help="the Python script every worker runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the script")
    opts = parser.parse_args(argv)
    try:
        cmd = command(opts.script, opts.num_workers, opts.args, opts.hostfile, opts.timeout)
    except (ValueError, FileNotFoundError) as err:
        print(err, file=sys.stderr)
        return 2
    code = subprocess.call(cmd, env=_environment(opts.num_workers))
    if code != 0:
        print(f"hybridlab.launch: the run failed (mpirun exit code {code}): a worker exited with an error, was "
              "killed or ran past --timeout, and mpirun stopped the other workers (its report is above)",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
