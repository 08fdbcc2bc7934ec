"""The lab layer reads the core through public APIs only (issue 13): no ``x._name`` in lab/ where
``x`` is a core object. Read with ``ast``, nothing is imported.

An access ``x._name`` is the lab's own when ``x`` is ``self``/``cls``/``super()``, when ``_name`` is
a display protocol name (``_repr_mimebundle_``), or when ``_name`` is defined by the lab (an
attribute or method of a lab class) and nowhere in the core. ``KNOWN`` lists the core privates the
lab still reads (a ratchet: a new one fails, and so does an entry that is gone).
"""
import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib", "hybridlab")
LAB = os.path.join(ROOT, "lab")

# (lab file, "object._attribute"): still read
KNOWN = set()


def _trees(folder, skip=None):
    for dirpath, _, files in os.walk(folder):
        if skip and os.path.abspath(dirpath).startswith(os.path.abspath(skip)):
            continue
        for f in sorted(files):
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    yield os.path.relpath(os.path.join(dirpath, f), folder), ast.parse(fh.read())


def _private(name):
    return name.startswith("_") and not name.endswith("_")


def defined_privates(trees):
    """Private names a tree defines: ``self._x = ...`` attributes, methods, class attributes."""
    names = set()
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name) and _private(t.id))
    return names


def _owner(value):
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id + "()"
    return ast.unparse(value)


def private_reads(lab_trees, lab_names, core_names):
    found = set()
    for path, tree in lab_trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            owner = _owner(node.value)
            if owner in ("self", "cls", "super()"):
                continue
            if node.attr in lab_names and node.attr not in core_names:
                continue          # the lab's own object (a widget reached through a weak reference)
            found.add((path, f"{owner}.{node.attr}"))
    return found


def _scan():
    lab = list(_trees(LAB))
    core = list(_trees(ROOT, skip=LAB))
    return private_reads(lab, defined_privates(lab), defined_privates(core))


def test_lab_reads_no_private_attribute_of_the_core():
    new = sorted(_scan() - KNOWN)
    assert not new, "lab/ reads private attributes of core objects (use block.hybridization or a public API):\n" + \
        "\n".join(f"  lab/{path}: {what}" for path, what in new)


def test_known_private_reads_are_still_there():
    gone = sorted(KNOWN - _scan())
    assert not gone, f"fixed: remove from KNOWN: {gone}"


def test_the_check_catches_a_private_read():
    lab = [("widgets.py", ast.parse("def f(block):\n    return block._cached_graph, self._mine, me._calls\n"))]
    lab_names = {"_mine", "_calls"}
    assert private_reads(lab, lab_names, core_names={"_cached_graph"}) == {("widgets.py", "block._cached_graph")}
    # a lab name that the core defines too is not trusted
    assert ("widgets.py", "me._calls") in private_reads(lab, lab_names, core_names={"_calls"})
