"""(to be filled by the params-file work)"""
__all__ = ["save", "load"]


def save(fname, data):
    raise NotImplementedError


def load(fname):
    raise NotImplementedError
