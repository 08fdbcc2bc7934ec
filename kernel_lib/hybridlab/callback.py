"""MXNet 1.x's training callbacks for ``Module.fit``: ``Speedometer`` (samples per second and the
metric every ``frequent`` batches), ``do_checkpoint`` (save every ``period`` epochs),
``log_train_metric`` and ``ProgressBar``.

Example::

    >>> import hybridlab as mx
    >>> cb = mx.callback.do_checkpoint('/tmp/hybridlab-doc-net', period=2)
    >>> callable(cb), mx.callback.Speedometer(32, frequent=10).frequent
    (True, 10)
"""
import logging
import time

__all__ = ["Speedometer", "do_checkpoint", "log_train_metric", "ProgressBar"]


def do_checkpoint(prefix, period=1):
    """An epoch-end callback saving ``prefix-symbol.json`` and ``prefix-%04d.params`` every
    ``period`` epochs (the file number is the epoch count, ``epoch + 1``)."""
    from .model import save_checkpoint
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every ``period`` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """A batch-end callback logging samples per second (and the metric) every ``frequent`` batches."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        self.init, self.tic, self.last_count = False, 0, 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init, self.tic = True, time.time()
            return
        if count % self.frequent:
            return
        speed = self.frequent * self.batch_size / max(time.time() - self.tic, 1e-12)
        if param.eval_metric is not None:
            pairs = param.eval_metric.get_name_value()
            if self.auto_reset:
                param.eval_metric.reset_local()
            text = "\t".join(f"{name}={value:f}" for name, value in pairs)
            logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec\t%s", param.epoch,
                         count - self.frequent, count, speed, text)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """A batch-end callback logging a text progress bar of ``total`` batches."""

    def __init__(self, total, length=80):
        self.total, self.bar_len = total, length

    def __call__(self, param):
        done = int(round(self.bar_len * (param.nbatch + 1) / float(self.total)))
        percent = -(-100 * (param.nbatch + 1) // self.total)
        logging.info("[%s] %s%s\r", "=" * done + "-" * (self.bar_len - done), percent, "%")
