"""``mx.optimizer``: the optimizers (SGD, NAG, Adam, AdamW, LAMB, RMSProp, AdaGrad, AdaDelta), their
registry and the Updater. Updates run in place on the weights' devices.

Example::

    >>> import hybridlab as mx
    >>> type(mx.optimizer.create('nag', momentum=0.9)).__name__
    'NAG'
"""
from .optimizer import Optimizer, register, create, Updater, get_updater  # noqa: F401
from .sgd import SGD, NAG  # noqa: F401
from .adam import Adam, AdamW, LAMB  # noqa: F401
from .adaptive import RMSProp, AdaGrad, AdaDelta  # noqa: F401

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater", "SGD", "NAG", "Adam", "AdamW", "LAMB",
           "RMSProp", "AdaGrad", "AdaDelta"]
