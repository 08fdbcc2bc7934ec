"""``HybridBlock.export``: the hybridized graph and its parameters as MXNet 1.9 files."""
import warnings

from .. import ndarray, symbol
from ..symbol.subgraph_inline import expand

__all__ = ["export_block"]


def export_block(block, path, epoch=0, remove_amp_cast=True):
    """See ``HybridBlock.export``."""
    sym = block.hybridization.graph
    if sym is None:
        raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                           "once before calling export.")
    sym = expand(sym)    # a _CachedOp node (a SymbolBlock of get_symbol's graph): its ops, as MXNet loads them
    arg_names = set(sym.list_arguments())
    aux_names = set(sym.list_auxiliary_states())
    arg_dict = {}
    seen = set()
    for param in block.collect_params().values():
        if id(param) in seen:
            continue
        seen.add(id(param))
        name = param.var().name
        if name in arg_names:
            arg_dict[f"arg:{name}"] = param._reduce()
        elif name in aux_names:
            arg_dict[f"aux:{name}"] = param._reduce()
        else:
            warnings.warn(f'Parameter "{name}" is not found in the graph. ', stacklevel=4)
    if path is None:
        if remove_amp_cast:
            sym = symbol.fromjson(sym.tojson(remove_amp_cast=True))
        return sym, arg_dict
    sym_filename = f"{path}-symbol.json"
    params_filename = f"{path}-{epoch:04d}.params"
    sym.save(sym_filename, remove_amp_cast=remove_amp_cast)
    ndarray.save(params_filename, arg_dict)
    return sym_filename, params_filename
