"""Text data for the legacy RNN API: ``encode_sentences`` (words to integer ids) and
``BucketSentenceIter`` (batches of sentences padded to bucket lengths, for ``BucketingModule``).

Example::

    >>> import hybridlab as mx
    >>> coded, vocab = mx.rnn.encode_sentences([['a', 'b'], ['b', 'c', 'a']], invalid_label=0, start_label=1)
    >>> coded, sorted(vocab.items())
    ([[1, 2], [2, 3, 1]], [('\\n', 0), ('a', 1), ('b', 2), ('c', 3)])
    >>> it = mx.rnn.BucketSentenceIter(coded, batch_size=1, buckets=[2, 3], invalid_label=0)
    WARNING: discarded 0 sentences longer than the largest bucket.
    >>> sorted((b.bucket_key, b.data[0].shape) for b in it)
    [(2, (1, 2)), (3, (1, 3))]
"""
import bisect
import random

import numpy as np

from ..base import MXNetValueError
from ..io import DataBatch, DataDesc, DataIter
from ..ndarray.ndarray import array

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0,
                     unknown_token=None):
    """Encode ``sentences`` (lists of words) as lists of integer ids: ``(coded, vocab)``.

    Without ``vocab`` a new one is built ({invalid_key: invalid_label} first, then ids from
    ``start_label`` on, skipping ``invalid_label``). With a ``vocab``, unknown words are an error
    unless ``unknown_token`` is given: then each unknown word is stored as ``unknown_token`` with the
    next free id (as in MXNet, every new unknown word gives ``unknown_token`` a new id).

    >>> import hybridlab as mx
    >>> mx.rnn.encode_sentences([['a', 'b', 'c'], ['b', 'c', 'd']], vocab={'a': 1, 'b': 2, 'c': 3},
    ...                         unknown_token='UNK')
    ([[1, 2, 3], [2, 3, 0]], {'a': 1, 'b': 2, 'c': 3, 'UNK': 0})
    """
    idx = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetValueError("Unknown token %s" % word)
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """Batches of ``batch_size`` sentences of one bucket each, padded with ``invalid_label`` to the
    bucket's length; the label is the sentence shifted left by one (the next word), ending in
    ``invalid_label``. ``buckets`` defaults to every length that at least ``batch_size`` sentences
    have; longer sentences are discarded (with a printed warning). ``layout`` 'NT' (batch major) or
    'TN'. Each batch carries its ``bucket_key`` (the length) and its own ``provide_data``/``provide_label``;
    ``default_bucket_key`` is the largest bucket. ``reset`` reshuffles batches and sentences.

    >>> import hybridlab as mx
    >>> it = mx.rnn.BucketSentenceIter([[1, 2], [3, 4, 5], [6]], batch_size=1, buckets=[3], invalid_label=0)
    WARNING: discarded 0 sentences longer than the largest bucket.
    >>> it.provide_data
    [DataDesc[data,(1, 3),<class 'numpy.float32'>,NT]]
    >>> sorted(b.label[0].asnumpy().tolist() for b in it)
    [[[0.0, 0.0, 0.0]], [[2.0, 0.0, 0.0]], [[4.0, 5.0, 0.0]]]
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super().__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, n in enumerate(counts) if n >= batch_size]
        buckets = sorted(buckets)
        ndiscard = 0
        data = [[] for _ in buckets]
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            buff = np.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[:len(sent)] = sent
            data[buck].append(buff)
        self.data = [np.asarray(d, dtype=dtype) for d in data]
        print("WARNING: discarded %d sentences longer than the largest bucket." % ndiscard)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata, self.ndlabel = [], []
        self.major_axis = layout.find('N')
        self.layout = layout
        self.default_bucket_key = max(buckets)
        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise MXNetValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)" % layout)
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]

        self.idx = []
        for i, buck in enumerate(self.data):
            self.idx.extend((i, j) for j in range(0, len(buck) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Shuffle the batch order and each bucket's sentences; rebuild the data and label arrays."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata, self.ndlabel = [], []
        for buck in self.data:
            label = np.empty_like(buck)
            if buck.size:
                label[:, :-1] = buck[:, 1:]
                label[:, -1] = self.invalid_label
            self.nddata.append(array(buck, dtype=self.dtype))
            self.ndlabel.append(array(label, dtype=self.dtype))

    def next(self):
        """The next batch (a ``DataBatch`` with ``bucket_key``), or StopIteration."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
