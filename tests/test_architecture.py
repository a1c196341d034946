"""The package's import graph keeps docs/architecture.md's layering (read from the sources, nothing imported).

- no import cycles between package modules (function-level imports count: a lazy import is still
  a dependency, and a cycle through one is how layering erodes);
- no package module imports the public ``tfcore`` package (tests, examples and bench may);
- only ``tfcore.backend`` (and the kernel sources package) imports CuPy or NCCL;
- no module replaces another's registered implementations by import order.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Import name -> directory, as pyproject's [tool.setuptools] package-dir maps them.
PACKAGE_DIRS = {"tfcore": ROOT / "tfcore", "tfcore.kernels": ROOT / "kernels",
                "tfcore.distribute": ROOT / "distribute"}


def _modules():
    mods = {}
    for pkg, d in PACKAGE_DIRS.items():
        for path in d.rglob("*.py"):
            parts = list(path.relative_to(d).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join([pkg, *parts])] = path
    return mods


MODULES = _modules()


def _targets(mod, node):
    """Module names an import statement in ``mod`` refers to (submodules when it names them)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    is_pkg = MODULES[mod].name == "__init__.py"
    base = mod if is_pkg else mod.rpartition(".")[0]
    for _ in range(max(node.level - 1, 0)):
        base = base.rpartition(".")[0]
    if node.level:
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module
    if not target.startswith("tfcore"):  # third-party: keep the names too (`from cupy.cuda import nccl`)
        return [target, *(f"{target}.{a.name}" for a in node.names)]
    subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    return subs if subs and len(subs) == len(node.names) else [target, *subs]


def _imports():
    """{module: [(imported name, line)]} for every import statement, at any depth."""
    out = {}
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        out[mod] = [(t, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                    for t in _targets(mod, node)]
    return out


IMPORTS = _imports()


def import_cycles(edges):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, sccs = {}, {}, set(), [], []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        sccs.append(sorted(comp))
    return sccs


def _edges():
    return {m: {t for t, _ in imps if t in MODULES and t != m} for m, imps in IMPORTS.items()}


def test_cycle_finder_finds_a_cycle():
    """The checker itself: a three-module ring and a self-contained pair are reported, a chain is not."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": set(), "f": {"g"}, "g": {"f"}}
    assert sorted(import_cycles(edges)) == [["a", "b", "c"], ["f", "g"]]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycles():
    cycles = import_cycles(_edges())
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_package_modules_never_import_the_public_package():
    entry_points = ("tfcore", "tfcore.cli", "tfcore.__main__")  # the public package and the command line
    bad = [f"{m}:{line}" for m, imps in IMPORTS.items() if m not in entry_points
           for t, line in imps if t == "tfcore" and "bench" not in m]
    assert not bad, f"package modules import `tfcore` (import siblings relatively instead): {bad}"


@pytest.mark.parametrize("banned", ["cupy", "nccl"])
def test_only_the_backend_imports_cupy_or_nccl(banned):
    allowed = ("tfcore.backend", "tfcore.kernels")
    bad = [f"{m}:{line} imports {t}" for m, imps in IMPORTS.items() if not m.startswith(allowed)
           for t, line in imps if t.split(".")[0] == banned or banned in t.split(".")]
    assert not bad, f"{banned} used outside tfcore.backend: {bad}"


def test_no_implementation_overrides_by_import_order():
    """Kernels are candidates in the registry (``@op.kernel(..., dtypes=, supports=, priority=)``); no module
    edits an op's candidate tables (or the old ``impls``) behind the registry's back."""
    markers = ("impls[", ".candidates[", "._direct[")
    bad = [m for m, path in MODULES.items() if m != "tfcore.ops.registry"
           and any(k in path.read_text() for k in markers)]
    assert not bad, f"modules writing an op's implementation table directly: {bad}"


# The layers, bottom first (docs/architecture.md): a module may import its own layer and the ones below.
# Top-level public namespaces (``tfcore.math``, ``tfcore.linalg``, ...), ``compat``, ``export``,
# ``selftest`` and the command line form the API layer above all of these: no layered module imports them.
LAYERS = (
    ("backend", "kernels"),
    ("framework", "module"),
    ("ops", "autodiff", "config", "nn"),
    ("function", "ragged"),
    ("data", "saving", "io", "summary"),
    ("distribute",),
    ("keras",),
)
_LAYER_OF = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def layer_of(module):
    """The layer rank of a ``tfcore.*`` module, or None for the API layer above every ranked one."""
    parts = module.split(".")
    return _LAYER_OF.get(parts[1]) if len(parts) > 1 and parts[0] == "tfcore" else None


def upward_imports(imports):
    """``module:line imports target`` for each import of a higher layer (or of the API layer) by a layered
    module; lazy (function-level) imports count like module-level ones."""
    bad = []
    for mod, imps in imports.items():
        own = layer_of(mod)
        if own is None:
            continue
        for target, line in imps:
            if target.split(".")[0] != "tfcore" or target == "tfcore":  # third-party; `tfcore` has its own test
                continue
            rank = layer_of(target)
            if rank is None or rank > own:
                bad.append(f"{mod}:{line} imports {target}")
    return bad


def test_layer_checker_finds_an_upward_import():
    imports = {"tfcore.backend.x": [("tfcore.framework.errors", 3)], "tfcore.keras.y": [("tfcore.ops.z", 1)],
               "tfcore.data.w": [("tfcore.cli", 9)], "tfcore.math": [("tfcore.keras", 2)]}
    assert upward_imports(imports) == ["tfcore.backend.x:3 imports tfcore.framework.errors",
                                       "tfcore.data.w:9 imports tfcore.cli"]


def test_imports_follow_the_layer_order():
    bad = upward_imports(IMPORTS)
    assert not bad, "imports of a higher layer (move the shared piece down, or the importer up): " + "; ".join(bad)


def module_attribute_patches(mod, tree):
    """``mod:line`` for each assignment to an attribute of a tfcore module bound by an import in ``mod``
    (``from ..ops import loss_ops; loss_ops._hook = f``): one module replacing another's functions."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            for alias in node.names:
                target = next((t for t in _targets(mod, node) if t.endswith("." + alias.name)), None)
                if target in MODULES or (isinstance(node, ast.Import) and alias.name.startswith("tfcore")):
                    bound.add((alias.asname or alias.name).split(".")[0])
    bad = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign | ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in bound:
                bad.append(f"{mod}:{node.lineno} assigns {t.value.id}.{t.attr}")
    return bad


def test_patch_finder_finds_a_patched_module_function():
    tree = ast.parse("from tfcore.ops import loss_ops\nloss_ops._num = lambda: 2\nx = object()\nx.y = 1\n")
    assert module_attribute_patches("tfcore.distribute", tree) == ["tfcore.distribute:2 assigns loss_ops._num"]


def test_no_module_patches_another():
    """State that crosses layers lives in a state module with a context manager
    (``tfcore/framework/replica_state.py``), never in a function one module replaces in another."""
    bad = [b for mod, path in MODULES.items() if mod != "tfcore"  # the public package assembles the API
           for b in module_attribute_patches(mod, ast.parse(path.read_text(), filename=str(path)))]
    assert not bad, f"modules assigning attributes of other modules: {bad}"


def test_every_package_import_names_an_existing_module():
    """A relative import that points nowhere (left behind when a module moved) fails only when its
    function runs; here it fails at once, lazy imports included."""
    bad = [f"{mod}:{line} imports {t}" for mod, imps in IMPORTS.items() for t, line in imps
           if t.startswith("tfcore.") and t not in MODULES
           and not any(t.startswith(m + ".") and MODULES[m].name != "__init__.py" for m in MODULES)]
    assert not bad, f"imports of modules that do not exist: {bad}"
