"""Pretrained weights are not available: hybridlab downloads nothing. ``get_model_file`` raises an
error that says so and how to load parameters saved locally (for example by real MXNet).

Example::

    >>> import hybridlab as mx
    >>> try:
    ...     mx.gluon.model_zoo.vision.resnet18_v1(pretrained=True)
    ... except mx.base.MXNetError as e:
    ...     print(str(e).splitlines()[0])
    Pretrained weights for 'resnet18_v1' are not available: hybridlab downloads nothing (no network access).
"""
from ...base import MXNetError

__all__ = ["get_model_file", "no_pretrained"]


def get_model_file(name, root=None):
    """Always raises: there is no model store to download ``name`` from."""
    raise MXNetError(
        f"Pretrained weights for '{name}' are not available: hybridlab downloads nothing (no network access).\n"
        f"Build the architecture with pretrained=False and load parameters from a local file instead:\n"
        f"    net = mx.gluon.model_zoo.vision.get_model('{name}')\n"
        f"    net.load_parameters('path/to/{name}-0000.params')   # a .params file saved by MXNet or hybridlab\n"
        f"or, for an exported model, mx.gluon.SymbolBlock.imports('{name}-symbol.json', ['data'], "
        f"'{name}-0000.params').")


def no_pretrained(name, pretrained):
    """Raise the error above when ``pretrained`` is true."""
    if pretrained:
        get_model_file(name)
