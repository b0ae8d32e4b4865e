"""Names are where they are, and the engine is given its built-ins (issue 39, items 4 and 5).

Read with :mod:`ast` over the package, counting imports inside functions too:

- no module of :mod:`nines_sim.engine` imports the built-in strategies (``nines_sim.strategies``): the turn loop
  compiles in what :mod:`nines_sim.strategy.compiled_builtins` registers, so a new compiled built-in touches
  ``strategies/`` only;
- no module imports a ``_private`` name of another module, or reads one from a module it imported (a private
  *module* is its package's: the package and its subpackages may import it).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nines_sim"


def _module_name(path: Path) -> str:
    """The dotted name of a file of the package (``strategies/`` installs as ``nines_sim.strategies``)."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "strategies":
        parts = ["nines_sim", *parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a file's syntax tree (``ast.walk``: the module itself first)."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))))


class _Facts(NamedTuple):
    """What the checks below read of one file of the package."""

    imports: list[tuple[int, str, tuple[str, ...]]]
    private: list[str]  # private_imports
    strings: list[tuple[int, str]]  # each string constant naming a built-in strategy's module, with its line
    getattr_calls: list[set[str]]  # for each top-level ``__getattr__``, the attributes it calls


@functools.cache
def _facts(path: Path) -> _Facts:
    """Each file parsed and walked once for all the checks (each parsed it again: a file four times), keeping only
    what they read (a tree kept for later tests would be walked by every garbage collection after it)."""
    nodes = _nodes(path)
    getattrs = [
        {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        for node in nodes[0].body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    strings = [
        (node.lineno, node.value)
        for node in nodes
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _names_a_built_in(node.value)
    ]
    return _Facts(_imports(path, nodes), private_imports(path, nodes), strings, getattrs)


def _imports(path: Path, nodes: tuple[ast.AST, ...] | None = None) -> list[tuple[int, str, tuple[str, ...]]]:
    """Every import of a file, at any depth: ``(line, module, names)`` (``names`` empty for ``import m``)."""
    out = []
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in _nodes(path) if nodes is None else nodes:
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from the file's package up
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            out.append((node.lineno, module, tuple(a.name for a in node.names)))
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(dotted: str) -> bool:
    """Whether a dotted name of the package is a module or package (by its file, without importing it)."""
    parts = dotted.split(".")
    if parts[:2] == ["nines_sim", "strategies"]:
        base = ROOT.joinpath("strategies", *parts[2:])
    else:
        base = ROOT.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private_imports(path: Path, nodes: tuple[ast.AST, ...] | None = None) -> list[str]:
    """Each ``_private`` name ``path`` takes from another module: ``"file:line module.name"``."""
    me = _module_name(path)
    nodes = _nodes(path) if nodes is None else nodes
    modules: dict[str, str] = {}  # local name -> the package module it is bound to
    out = []
    for line, module, names in _imports(path, nodes):
        if not module.startswith("nines_sim"):
            continue
        if not names:  # import nines_sim.x.y (as z): reads through the top name
            continue
        for name in names:
            dotted = f"{module}.{name}"
            if _is_module(dotted):
                modules[name] = dotted
                # a private module is its package's: the package and its subpackages may import it
                if _private(name) and not (me == module or me.startswith(module + ".")):
                    out.append(f"{line} {dotted}")
            elif _private(name) and module != me:
                out.append(f"{line} {dotted}")
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("nines_sim"):
                    modules[a.asname or a.name] = a.name
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and modules[node.value.id] != me
        ):
            out.append(f"{node.lineno} {modules[node.value.id]}.{node.attr}")
    return [f"{path.relative_to(ROOT).as_posix()}:{x}" for x in out]


def _files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def _names_a_built_in(text: str) -> bool:
    return text == "nines_sim.strategies" or text.startswith("nines_sim.strategies.")


def test_the_engine_imports_nothing_from_the_built_in_strategies():
    """Neither by an import statement nor by a module name in a string (``importlib.import_module``)."""
    found = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files("nines_sim/engine")
        for line, module, names in _facts(p).imports
        if _names_a_built_in(module) or (module == "nines_sim" and "strategies" in names)
    ]
    found += [
        f"{p.relative_to(ROOT)}:{line} names {value}"
        for p in _files("nines_sim/engine")
        for line, value in _facts(p).strings
    ]
    assert not found, "\n".join(found)


def test_every_compiled_built_in_is_registered_and_every_registered_one_is_a_built_in():
    """The seats the engine plays compiled (each class's ``kernel_id``) are the classes it is given code for."""
    from nines_sim.engine.seats import builtin_ids
    from nines_sim.strategy.compiled_builtins import given

    registered = given()
    assert registered.ids == builtin_ids()
    first, last = registered.light_ids
    assert [registered.ids[c] for c in registered.light] == list(range(first, last + 1))
    assert {c.name for c in registered.light} == {"random", "hold-nines", "dump-faces", "suit-majority"}
    assert [c.name for c in registered.heavy] == ["expert"]


@pytest.mark.parametrize(
    ("light_ids", "heavy_id", "message"),
    [
        ((1, 3), 5, "consecutive"),  # a gap in the light run
        ((1, 2), 2, "distinct"),  # the heavy one shares a light id
        ((1, 2), 6, "distinct"),  # the engine's own id of a compiled user strategy
        ((0, 1), 5, "distinct"),  # the engine's own id of a Python seat
    ],
)
def test_a_registration_the_turn_loop_cannot_play_is_refused(light_ids, heavy_id, message):
    from nines_sim.strategy.compiled_builtins import CompiledBuiltins, RegistrationError

    light = tuple(type(f"Light{i}", (), {"kernel_id": i}) for i in light_ids)
    heavy = (type("Heavy", (), {"kernel_id": heavy_id, "params": ()}),)
    with pytest.raises(RegistrationError, match=message):
        CompiledBuiltins(light, None, None, heavy, None, None)


def test_a_registered_class_without_its_own_kernel_id_is_refused():
    from nines_sim.strategy.compiled_builtins import CompiledBuiltins, RegistrationError

    base = type("Base", (), {"kernel_id": 1})
    with pytest.raises(RegistrationError, match="declares no kernel_id"):
        CompiledBuiltins((type("Sub", (base,), {}),), None, None, (base,), None, None)


def test_no_module_imports_a_private_name_of_another():
    found = [x for p in _files("nines_sim", "strategies") for x in _facts(p).private]
    assert found == []


def test_the_private_import_check_finds_what_it_should(tmp_path, monkeypatch):
    """The check itself: a private name imported or read across modules is found, one's own is not."""
    pkg = tmp_path / "nines_sim" / "demo"
    pkg.mkdir(parents=True)
    (tmp_path / "nines_sim" / "_hidden.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n_y = 2\n")
    (pkg / "b.py").write_text(
        "from nines_sim.demo.a import _x\n"
        "from nines_sim import _hidden\n"  # a private module of nines_sim: nines_sim.demo may import it
        "def f():\n"
        "    import nines_sim.demo.a as a\n"
        "    return a._y\n"
    )
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert private_imports(pkg / "b.py") == [
        "nines_sim/demo/b.py:1 nines_sim.demo.a._x",
        "nines_sim/demo/b.py:5 nines_sim.demo.a._y",
    ]
    assert private_imports(pkg / "a.py") == []


def test_no_package_looks_names_up_on_first_use_but_for_deprecated_ones():
    """A package's names are imported explicitly (grep and go-to-definition find them); a module ``__getattr__``
    only hands out the names :data:`nines_sim._moved.MOVED_NAMES` deprecates, through ``_moved.moved_name``."""
    from nines_sim import _moved

    found = []
    for path in _files("nines_sim", "strategies"):
        for calls in _facts(path).getattr_calls:
            if calls != {"moved_name"} or _module_name(path) not in _moved.MOVED_NAMES:
                found.append(path.relative_to(ROOT).as_posix())
    assert found == []


#: Modules a process may import first: a Dask worker unpickling a task imports the task's module before anything
#: else, so each of these must import alone without closing an import circle (``strategy.base`` reads the
#: engine's declared state, and the engine's package once imported the broker, which imports ``strategy.base``).
FIRST_IMPORTS = (
    "nines_sim.strategy.base",
    "nines_sim.strategy",
    "nines_sim.engine.slots",
    "nines_sim.engine.broker",
    "nines_sim.experiments.tournament.games",
    "nines_sim.experiments.tournament.work",
    "nines_sim.luck.compiled",
    "nines_sim.learn.collect",
    "nines_sim.search.pimc",
)


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_a_module_a_worker_may_import_first_imports_alone(module):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1]
