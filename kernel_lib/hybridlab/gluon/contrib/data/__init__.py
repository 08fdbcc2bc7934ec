"""``mx.gluon.contrib.data``: MXNet 1.x's contributed data utilities: ``IntervalSampler`` and the
language-model datasets ``text.WikiText2`` / ``text.WikiText103`` (downloaded on first use).

Example::

    >>> import hybridlab as mx
    >>> list(mx.gluon.contrib.data.IntervalSampler(7, 3))
    [0, 3, 6, 1, 4, 2, 5]
"""
from . import sampler, text  # noqa: F401
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler", "text"]
