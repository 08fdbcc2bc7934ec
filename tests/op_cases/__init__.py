"""Op checker cases, one module per op family; ``all_cases()`` collects them."""
import importlib
import pkgutil


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases
