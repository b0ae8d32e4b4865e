"""Names are where they are, and the engine is given its built-ins (issue 39, items 4 and 5).

Read with :mod:`ast` over the package, counting imports inside functions too:

- no module of :mod:`nines_sim.engine` imports the built-in strategies (``nines_sim.strategies``): the turn loop
  compiles in what :mod:`nines_sim.strategy.compiled_builtins` registers, so a new compiled built-in touches
  ``strategies/`` only;
- no module imports a ``_private`` name of another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

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


def _imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """Every import of a file, at any depth: ``(line, module, names)`` (``names`` empty for ``import m``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
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


def _files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def test_the_engine_imports_nothing_from_the_built_in_strategies():
    found = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in _files("nines_sim/engine")
        for line, module, names in _imports(p)
        if module == "nines_sim.strategies"
        or module.startswith("nines_sim.strategies.")
        or (module == "nines_sim" and "strategies" in names)
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
