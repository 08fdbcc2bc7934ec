"""Token counting for text data (MXNet's ``mx.contrib.text.utils``).

Example::

    >>> from hybridlab.contrib.text.utils import count_tokens_from_str
    >>> sorted(count_tokens_from_str(' Life is great ! \\n life is good . \\n', ' ', '\\n', True).items())
    [('!', 1), ('.', 1), ('good', 1), ('great', 1), ('is', 2), ('life', 2)]
"""
import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False, counter_to_update=None):
    """A ``collections.Counter`` of the tokens of ``source_str``: split on the regular expressions
    ``token_delim`` and ``seq_delim`` (empty pieces dropped), lower-cased with ``to_lower``; added
    to ``counter_to_update`` (and that counter returned) when one is given.

    >>> count_tokens_from_str('*a*b*\\n*a*', r'\\*', '\\n')
    Counter({'a': 2, 'b': 1})
    """
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
