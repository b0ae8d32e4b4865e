"""The package's import layers, read from the source with ast (imports inside functions and under
``TYPE_CHECKING`` count): the run machinery knows no experiment, no two modules import each other however
indirectly, and no module of the run machinery, the experiments, the command line or the reporting imports
another module's ``_private`` name (issue 39)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "nines_sim"
#: The parts of the package this layering covers: each experiment's home, the machinery under it, the CLI
#: over it and the reporting beside it.
LAYERED = ("runs", "experiments", "cli", "reporting")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def resolve(name: str) -> str:
    """The module a dotted name lives in (``nines_sim.runs.driver.run`` -> ``nines_sim.runs.driver``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports(module: str) -> list[tuple[str, str | None]]:
    """Every ``(module imported, name taken from it or None)`` of ``module``'s source, wherever it stands."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(resolve(a.name), None) for a in node.names if a.name.startswith("nines_sim")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            if not base.startswith("nines_sim"):
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                out.append((full, None) if full in MODULES else (resolve(base), a.name))
    return [(m, n) for m, n in out if m and m != module]


def in_layers(module: str) -> bool:
    return any(module == f"nines_sim.{part}" or module.startswith(f"nines_sim.{part}.") for part in LAYERED)


def import_circles(modules: list[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), among ``modules``."""
    inside = set(modules)
    edges = {m: sorted({t for t, _ in imports(m) if t in inside}) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for m in modules:
        if m not in index:
            visit(m)
    return circles


def test_the_run_machinery_imports_no_experiment_and_no_command_line():
    wrong = [
        f"{m} imports {t}"
        for m in MODULES
        if m.startswith("nines_sim.runs")
        for t, _ in imports(m)
        if t.startswith(("nines_sim.experiments", "nines_sim.cli", "nines_sim.reporting"))
    ]
    assert wrong == []


def test_no_import_circle_among_the_experiments_the_machinery_the_cli_and_the_reporting():
    layered = sorted(m for m in MODULES if in_layers(m)) + ["nines_sim.console"]
    assert import_circles(layered) == []


def test_no_private_name_is_imported_from_another_module():
    wrong = [
        f"{m} imports {name} from {t}"
        for m in MODULES
        if in_layers(m)
        for t, name in imports(m)
        if name and name.startswith("_") and not name.startswith("__")
    ]
    assert wrong == []


def test_the_circle_finder_sees_a_circle_closed_inside_a_function(monkeypatch, tmp_path):
    """The checks above are only as good as the finder: a circle closed by an import in a function body is one,
    and a private name so imported is seen."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from nines_sim.b import y\n")
    b.write_text("def g():\n    from nines_sim.a import _x\n")
    monkeypatch.setitem(MODULES, "nines_sim.a", a)
    monkeypatch.setitem(MODULES, "nines_sim.b", b)
    assert import_circles(["nines_sim.a", "nines_sim.b"]) == [["nines_sim.a", "nines_sim.b"]]
    assert ("nines_sim.a", "_x") in imports("nines_sim.b")
