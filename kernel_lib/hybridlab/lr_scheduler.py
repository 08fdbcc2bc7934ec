"""Learning-rate schedules (MXNet's ``mx.lr_scheduler``): a scheduler is called with the number of
updates done so far and returns the learning rate; every one supports a warmup (linear from
``warmup_begin_lr`` or constant) over the first ``warmup_steps`` updates.

Example::

    >>> import hybridlab as mx
    >>> sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    >>> [sched(n) for n in range(1, 7)]
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    >>> cos = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0, warmup_steps=2)
    >>> [round(cos(n), 3) for n in (0, 1, 2, 6, 10)]
    [0.0, 0.5, 1.0, 0.5, 0.0]
"""
import logging
from math import cos, pi

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]


class LRScheduler:
    """Base class: ``__call__(num_update)`` returns the learning rate; handles the warmup."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        self.base_lr = base_lr
        if not isinstance(warmup_steps, int):
            raise AssertionError(f"warmup_steps: expected an int, got {type(warmup_steps).__name__}")
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ValueError(f"Base lr has to be higher than warmup_begin_lr (base_lr={base_lr}, "
                             f"warmup_begin_lr={warmup_begin_lr})")
        if self.warmup_steps < 0:
            raise ValueError(f"Warmup steps has to be positive or 0, got {warmup_steps}")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError(f"Supports only linear and constant modes of warmup, got {warmup_mode!r}")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The learning rate during the warmup (``num_update < warmup_steps``)."""
        if num_update >= self.warmup_steps:
            raise AssertionError(f"get_warmup_lr: num_update {num_update} is past warmup_steps {self.warmup_steps}")
        if self.warmup_mode == "linear":
            increase = (self.warmup_final_lr - self.warmup_begin_lr) * float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + increase
        return self.warmup_begin_lr

    def __call__(self, num_update):
        raise NotImplementedError("must override this")

    def __repr__(self):
        return f"{self.__class__.__name__}(base_lr={self.base_lr}, warmup_steps={self.warmup_steps})"


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never below ``stop_factor_lr``."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(f"Schedule step must be greater or equal than 1 round, got {step}")
        if factor > 1.0:
            raise ValueError(f"Factor must be no more than 1 to make lr reduce, got {factor}")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:   # a while: resuming from a later update works
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not change in the future",
                             num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` after each update count listed in ``step`` (increasing)."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or len(step) < 1:
            raise AssertionError(f"step: expected a non-empty list, got {step!r}")
        for i, s in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise ValueError(f"Schedule step must be an increasing integer list, got {step}")
            if s < 1:
                raise ValueError(f"Schedule step must be greater or equal than 1 round, got {s}")
        if factor > 1.0:
            raise ValueError(f"Factor must be no more than 1 to make lr reduce, got {factor}")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
            else:
                return self.base_lr
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Shared by Poly and Cosine: after the warmup, ``final_lr + (base_lr - final_lr) * decay(t)``
    with ``t`` the fraction of the ``max_update - warmup_steps`` decay steps done; constant after."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise AssertionError(f"max_update: expected an int, got {type(max_update).__name__}")
        if max_update < 1:
            raise ValueError(f"maximum number of updates must be strictly positive, got {max_update}")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decay(self, t):
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            t = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._decay(t)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """``final_lr + (base_lr - final_lr) * (1 - n / max_steps) ** pwr`` after the warmup, until
    ``max_update``."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _decay(self, t):
        return pow(1 - t, self.power)


class CosineScheduler(_DecayToFinal):
    """``final_lr + (base_lr - final_lr) * (1 + cos(pi * n / max_steps)) / 2`` after the warmup, until
    ``max_update``."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)

    def _decay(self, t):
        return (1 + cos(pi * t)) / 2
