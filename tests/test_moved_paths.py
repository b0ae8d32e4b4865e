"""Module paths keep working: every earlier path, every ``nines_sim`` path the docs show, and a stored run's command.

- each old path of :data:`nines_sim._moved.MOVED` imports as the very module object of its new path, with a
  ``DeprecationWarning`` that names the new path and the release that drops it, pointing at the importing line;
  each name of :data:`nines_sim._moved.MOVED_NAMES` likewise;
- each ``nines_sim`` module and name that README.md and docs/ use in their code blocks imports;
- the command in the manifest of each folder of ``tests/data/reruns`` (written by the code before the
  one-engine and stage-layout redesign), run again, writes the same CSVs byte for byte
  (``tests/test_stored_runs.py`` redraws the older stored reports from their files; it never reruns a command).
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import sys
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim import _moved
from nines_sim.cli import app

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
FROM_IMPORT = re.compile(r"^\s*from\s+(nines_sim[\w.]*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)
IMPORT = re.compile(r"^\s*import\s+(nines_sim[\w.]*)", re.M)
DOTTED = re.compile(r"(?<![\w./-])(nines_sim(?:\.\w+)+)")
SPEC = re.compile(r"(?<![\w./-])(nines_sim(?:\.\w+)*):(\w+)")


def _code_blocks() -> list[tuple[str, str]]:
    """(doc file, code block text) of every fenced block of README.md and docs/."""
    return [(str(p.relative_to(ROOT)), m.group(1)) for p in DOCS for m in FENCE.finditer(p.read_text())]


def documented() -> list[tuple[str, str, str | None]]:
    """(where, module path, name or None) of every ``nines_sim`` module and name the docs' code blocks use."""
    out: dict[tuple[str, str | None], str] = {}
    for where, code in _code_blocks():
        for mod, names in FROM_IMPORT.findall(code):
            for n in names.strip("()").replace("\n", " ").split(","):
                n = n.split(" as ")[0].strip()
                if n and n != "*":
                    out.setdefault((mod, n), where)
        for mod in IMPORT.findall(code):
            out.setdefault((mod, None), where)
        for mod, name in SPEC.findall(code):
            out.setdefault((mod, name), where)
        for dotted in DOTTED.findall(code):
            out.setdefault((dotted, None), where)
    return sorted(((where, mod, name) for (mod, name), where in out.items()), key=lambda t: (t[0], t[1], t[2] or ""))


def _resolve(dotted: str) -> object:
    """The module at ``dotted``, or the attribute its longest importable module prefix holds."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_every_old_path_imports_as_the_same_module_as_its_new_path_and_warns_with_it(old: str) -> None:
    new = _moved.MOVED[old]
    sys.modules.pop(f"nines_sim.{old}", None)  # a first import warns (later ones find the module imported)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        __import__(f"nines_sim.{old}")  # as an import statement does (importlib.import_module adds a frame)
    assert sys.modules[f"nines_sim.{old}"] is importlib.import_module(new)
    moved = [w for w in caught if issubclass(w.category, DeprecationWarning) and f"nines_sim.{old} " in str(w.message)]
    assert len(moved) == 1, [str(w.message) for w in caught]
    assert f"moved to {new};" in str(moved[0].message) and _moved.REMOVED_IN in str(moved[0].message)
    assert moved[0].filename == __file__  # the importing line, not the import system's


@pytest.mark.parametrize(("package", "name"), [(p, n) for p, names in _moved.MOVED_NAMES.items() for n in names])
def test_every_moved_name_still_imports_from_its_old_package_and_warns_with_its_new_home(package, name) -> None:
    home = _moved.MOVED_NAMES[package][name]
    old = importlib.import_module(package)
    vars(old).pop(name, None)  # resolved on first use only
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(old, name)
    assert value is getattr(importlib.import_module(home), name)
    assert [str(w.message).split(";")[0] for w in caught] == [f"{package}.{name} moved to {home}.{name}"]
    assert caught[0].filename == __file__


def test_a_name_no_release_held_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        importlib.import_module("nines_sim.play").no_such_name  # noqa: B018 - the look-up is the test


def test_the_changelog_says_when_the_old_paths_go_and_the_version_is_raised() -> None:
    import nines_sim

    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{nines_sim.__version__}]" in changelog
    assert f"removed in {_moved.REMOVED_IN}" in changelog.lower()
    assert re.search(
        r'^version = "' + re.escape(nines_sim.__version__) + '"$', (ROOT / "pyproject.toml").read_text(), re.M
    )
    assert nines_sim.__version__ == "0.2.0"


def test_the_docs_use_nines_sim_paths_in_code_blocks() -> None:
    # the extraction finds something: an empty list would let the test below pass on nothing
    found = documented()
    assert len(found) >= 5, found
    assert any(where == "README.md" for where, _, _ in found)


@pytest.mark.parametrize(("where", "module", "name"), documented())
def test_every_documented_path_and_name_imports(where: str, module: str, name: str | None) -> None:
    obj = _resolve(module)
    if name is not None:
        assert hasattr(obj, name), f"{where}: {module} has no {name}"


RERUNS = sorted(p for p in (ROOT / "tests" / "data" / "reruns").iterdir() if p.is_dir())


@pytest.mark.parametrize("stored", RERUNS, ids=[p.name for p in RERUNS])
def test_a_stored_runs_command_reruns_to_the_same_csvs(stored: Path, tmp_path: Path) -> None:
    cmd = shlex.split(json.loads((stored / "manifest.json").read_text())["command"])
    assert cmd[0] == "nines"
    out = tmp_path / "again"
    r = CliRunner().invoke(app, [*cmd[1:], "--workers", "1", "--no-charts", "--quiet", "--out", str(out)])
    assert r.exit_code == 0, r.output
    csvs = sorted(p.name for p in stored.glob("*.csv"))
    assert csvs
    for name in csvs:
        assert (out / name).read_bytes() == (stored / name).read_bytes(), name
