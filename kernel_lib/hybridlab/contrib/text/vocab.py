"""``Vocabulary``: indices for text tokens (MXNet's ``mx.contrib.text.vocab``).

Index 0 is the unknown token, then come the reserved tokens in their order, then the keys of
``counter`` by decreasing frequency (ties in sorted token order), keeping those counted at least
``min_freq`` times and at most ``most_freq_count`` of them.

Example::

    >>> import collections
    >>> from hybridlab.contrib.text.vocab import Vocabulary
    >>> v = Vocabulary(collections.Counter(['x', 'y', 'y', 'z']), most_freq_count=2)
    >>> v.idx_to_token, len(v), v.to_tokens([1, 2])
    (['<unk>', 'y', 'x'], 3, ['y', 'x'])
"""
import collections

__all__ = ["Vocabulary"]

UNKNOWN_IDX = 0


class Vocabulary:
    """Token <-> index tables built from a ``collections.Counter`` (see the module docstring).

    >>> Vocabulary(reserved_tokens=['<pad>']).token_to_idx
    {'<unk>': 0, '<pad>': 1}
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        if min_freq <= 0:
            raise AssertionError(f"Vocabulary: min_freq expected a positive value, got {min_freq}")
        if reserved_tokens is not None:
            if unknown_token in set(reserved_tokens):
                raise AssertionError(f"Vocabulary: reserved_tokens {reserved_tokens} cannot contain the "
                                     f"unknown_token {unknown_token!r}")
            if len(set(reserved_tokens)) != len(reserved_tokens):
                raise AssertionError(f"Vocabulary: reserved_tokens expected no duplicates, got {reserved_tokens}")
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {token: idx for idx, token in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter_keys(counter, most_freq_count, min_freq)

    def _index_counter_keys(self, counter, most_freq_count, min_freq):
        if not isinstance(counter, collections.Counter):
            raise AssertionError(f"Vocabulary: counter expected a collections.Counter, got {type(counter).__name__}")
        special = set(self._idx_to_token)
        token_freqs = sorted(counter.items(), key=lambda x: x[0])
        token_freqs.sort(key=lambda x: x[1], reverse=True)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in token_freqs:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: each indexed token -> its index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: the indexed tokens, position = index."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """The token standing for every token not indexed (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """The reserved tokens (indices 1, 2, ...), or None."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens (unknown ones -> 0)."""
        single = not isinstance(tokens, list)
        indices = [self._token_to_idx.get(t, UNKNOWN_IDX) for t in ([tokens] if single else tokens)]
        return indices[0] if single else indices

    def to_tokens(self, indices):
        """The token of an index, or the list of tokens of a list of indices; ``ValueError`` for an
        index that is not an int in ``[0, len(self))``."""
        single = not isinstance(indices, list)
        tokens = []
        for idx in [indices] if single else indices:
            if not isinstance(idx, int) or idx > len(self._idx_to_token) - 1:
                raise ValueError(f"Token index {idx} in the provided `indices` is invalid: expected an int in "
                                 f"[0, {len(self._idx_to_token)})")
            tokens.append(self._idx_to_token[idx])
        return tokens[0] if single else tokens
