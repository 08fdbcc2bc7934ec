"""``mx.contrib.text``: MXNet 1.x's text utilities: ``utils.count_tokens_from_str`` (token counts of
a string) and ``vocab.Vocabulary`` (token <-> index, index 0 the unknown token, then the reserved
tokens, then the counted tokens by decreasing frequency). MXNet's pretrained ``embedding`` module
(GloVe / fastText downloads) is not part of hybridlab.

Example::

    >>> import hybridlab as mx
    >>> counter = mx.contrib.text.utils.count_tokens_from_str('a b b\\nc b a\\n')
    >>> vocab = mx.contrib.text.vocab.Vocabulary(counter, reserved_tokens=['<eos>'])
    >>> vocab.idx_to_token
    ['<unk>', '<eos>', 'b', 'a', 'c']
    >>> vocab.to_indices(['a', 'z'])
    [3, 0]
"""
from . import utils, vocab  # noqa: F401
from .vocab import Vocabulary  # noqa: F401

__all__ = ["utils", "vocab", "Vocabulary"]
