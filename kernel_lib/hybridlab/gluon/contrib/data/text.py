"""MXNet 1.x's language-model datasets ``WikiText2`` and ``WikiText103`` (Salesforce research's
WikiText, CC BY-SA): a segment's tokens (an ``<eos>`` appended to each non-empty line) indexed by a
``mx.contrib.text.vocab.Vocabulary`` (built from the segment's token counts unless ``vocab`` is
given), cut into samples of ``seq_len`` tokens; each sample's label is the same window moved one
token on. The archive is downloaded from MXNet's dataset repository (``MXNET_GLUON_REPO``) into
``root`` when the segment's file is missing there or its SHA-1 differs.

Example (a stand-in file instead of the real one: its SHA-1 check is switched off)::

    >>> import os, tempfile
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.contrib.data import text
    >>> root = tempfile.mkdtemp()
    >>> _ = open(os.path.join(root, 'wiki.test.tokens'), 'w').write(' = A = \\n\\n b a b \\n')
    >>> real_check, text.check_sha1 = text.check_sha1, lambda path, sha1: True
    >>> ds = text.WikiText2(root=root, segment='test', seq_len=2)
    >>> text.check_sha1 = real_check
    >>> ds.vocabulary.idx_to_token, len(ds)
    (['<unk>', '<eos>', '=', 'b', 'A', 'a'], 3)
    >>> [(x.asnumpy().tolist(), y.asnumpy().tolist()) for x, y in ds][:2]
    [([2, 4], [4, 2]), ([2, 1], [1, 3])]
"""
import os
import shutil
import zipfile

import numpy as np

from .... import ndarray as nd
from ....base import MXNetValueError, data_dir
from ....contrib import text as _text
from ...data.vision.datasets import _DownloadedDataset
from ...utils import check_sha1

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"


class _LanguageModelDataset(_DownloadedDataset):
    def __init__(self, root, namespace, vocabulary):
        self._vocab = vocabulary
        self._counter = None
        self._namespace = namespace
        super().__init__(root, None)

    @property
    def vocabulary(self):
        """The ``mx.contrib.text.vocab.Vocabulary`` indexing the tokens."""
        return self._vocab

    @property
    def frequencies(self):
        """The ``collections.Counter`` of this segment's tokens."""
        return self._counter

    def _build_vocab(self, content):
        if not self._counter:
            self._counter = _text.utils.count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = _text.vocab.Vocabulary(counter=self.frequencies, reserved_tokens=[EOS_TOKEN])


class _WikiText(_LanguageModelDataset):

    def _read_batch(self, filename):
        with open(filename, "r", encoding="utf8") as fin:
            content = fin.read()
        self._build_vocab(content)
        lines = [line for line in (x.strip().split() for x in content.splitlines()) if line]
        tokens = [t for line in lines for t in line + [EOS_TOKEN] if t]
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _get_data(self):
        if self._segment not in self._data_file:
            raise MXNetValueError(f"{type(self).__name__}: segment expected one of {list(self._data_file)}, "
                                  f"got {self._segment!r}")
        archive_name, archive_hash = self._archive_file
        data_name, data_hash = self._data_file[self._segment]
        path = os.path.join(self._root, data_name)
        if not os.path.exists(path) or not check_sha1(path, data_hash):
            archive = self._fetch(archive_name, archive_hash)
            with zipfile.ZipFile(archive, "r") as zf:
                for member in zf.namelist():
                    filename = os.path.basename(member)     # flattened: no member writes outside root
                    if filename:
                        with zf.open(member) as source, open(os.path.join(self._root, filename), "wb") as target:
                            shutil.copyfileobj(source, target)
        data, label = self._read_batch(path)
        n = len(data) // self._seq_len * self._seq_len     # whole samples only, as MXNet 1.9 cuts them
        self._data = nd.array(data[:n], dtype=data.dtype).reshape((-1, self._seq_len))
        self._label = nd.array(label[:n], dtype=label.dtype).reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (about 2 million training tokens): ``segment`` 'train', 'validation' or 'test';
    ``vocab`` a Vocabulary to index with (None: built from this segment); samples of ``seq_len``
    tokens. See the module docstring."""

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-2"), segment="train", vocab=None,
                 seq_len=35):
        self._archive_file = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
        self._data_file = {"train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
                           "validation": ("wiki.valid.tokens", "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
                           "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172")}
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, "wikitext-2", vocab)


class WikiText103(_WikiText):
    """WikiText-103 (about 103 million training tokens); the parameters as ``WikiText2``'s."""

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-103"), segment="train", vocab=None,
                 seq_len=35):
        self._archive_file = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
        self._data_file = {"train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
                           "validation": ("wiki.valid.tokens", "c326ac59dc587676d58c422eb8a03e119582f92b"),
                           "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47")}
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, "wikitext-103", vocab)
