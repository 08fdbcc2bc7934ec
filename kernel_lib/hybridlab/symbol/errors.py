"""What a Symbol cannot do, explained: MXNet's error type and text plus the rewrite to use."""
__all__ = ["symbol_indexing_error"]


def symbol_indexing_error(index):
    return TypeError(f"Symbol only supports integer index to fetch i-th output, got {type(index).__name__} "
                     f"{index!r}. A Symbol has no values, only outputs: to slice data inside a hybridized "
                     f"block use F.slice_axis(x, axis=..., begin=..., end=...) or F.slice(x, begin=(...), "
                     f"end=(...)), and F.take/F.pick for index arrays.")
