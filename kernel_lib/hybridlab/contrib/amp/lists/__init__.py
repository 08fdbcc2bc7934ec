"""The AMP op lists (``mxnet.contrib.amp.lists``): ``symbol_fp16`` and ``symbol_bf16``."""
from . import symbol_bf16, symbol_fp16  # noqa: F401
