"""``mx.optimizer``: the optimizers (SGD, NAG, Signum, LARS, DCASGD, SGLD, Adam, Adamax, Nadam, FTML,
AdamW, LAMB, RMSProp, AdaGrad, AdaDelta, Ftrl), their registry and the Updater. Updates run in place
on the weights' devices.

Example::

    >>> import hybridlab as mx
    >>> type(mx.optimizer.create('nag', momentum=0.9)).__name__
    'NAG'
"""
from .optimizer import Optimizer, register, create, Updater, get_updater  # noqa: F401
from .sgd import SGD, NAG  # noqa: F401
from .sgd_variants import Signum, LARS, DCASGD, SGLD  # noqa: F401
from .adam import Adam, AdamW, LAMB, Adamax, Nadam, FTML  # noqa: F401
from .adaptive import RMSProp, AdaGrad, AdaDelta, Ftrl  # noqa: F401

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater", "SGD", "NAG", "Signum", "LARS", "DCASGD",
           "SGLD", "Adam", "AdamW", "LAMB", "Adamax", "Nadam", "FTML", "RMSProp", "AdaGrad", "AdaDelta", "Ftrl"]
