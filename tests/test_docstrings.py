"""The examples in public docstrings run and print what they say."""
import doctest
import importlib
import pkgutil

import pytest

import hybridlab

MODULES = sorted(m.name for m in pkgutil.walk_packages(hybridlab.__path__, "hybridlab."))


@pytest.mark.parametrize("name", ["hybridlab"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
