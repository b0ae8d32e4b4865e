"""Packaging: the built-ins install as ``nines_sim.strategies``, never as a top-level ``strategies``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: an in-place build leaves build/lib in the checkout, whose stale modules (of a file
    # since moved or deleted) would go into later wheels and hide a package the wheel lacks.
    src = out / "src"
    skip = shutil.ignore_patterns(".git", ".venv*", "build", "site", "reports", "*.egg-info", "__pycache__", ".*_cache")
    shutil.copytree(ROOT, src, ignore=skip)
    # No build isolation: the test extra brings setuptools and wheel, so no download is needed.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    (whl,) = out.glob("nines_sim-*.whl")
    return whl


def test_wheel_installs_only_the_nines_sim_package(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith((".dist-info", ".data"))}
    assert top == {"nines_sim"}
    assert "nines_sim/strategies/expert.py" in names
    assert not any(n.startswith("strategies/") for n in names)


def _source_packages() -> dict[str, Path]:
    """Every package of the checkout, by the path its files take in the wheel: each folder with an ``__init__.py``
    under ``nines_sim/``, and under ``strategies/`` (installed as ``nines_sim/strategies``)."""
    found = {}
    for top, installed in (("nines_sim", "nines_sim"), ("strategies", "nines_sim/strategies")):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            inner = init.parent.relative_to(ROOT / top).as_posix()
            found[installed if inner == "." else f"{installed}/{inner}"] = init.parent
    return found


def test_every_subpackage_and_its_modules_are_in_the_wheel(wheel: Path):
    """Packages are found, not listed (pyproject.toml, setup.py): a new subpackage cannot be left out."""
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = _source_packages()
    # the walk itself sees the layout: the charts subpackage and the built-ins among the rest
    assert {"nines_sim/play", "nines_sim/reporting/charts", "nines_sim/strategies"} <= set(packages)
    missing = [
        f"{installed}/{module.name}"
        for installed, folder in packages.items()
        for module in sorted(folder.glob("*.py"))
        if f"{installed}/{module.name}" not in names
    ]
    assert not missing, f"not in the wheel: {missing}"


def _without_editable_install(env_path: Path) -> dict[str, str]:
    """Environment for ``python -S``: the given folder, then this venv's site-packages without its .pth hooks.

    ``-S`` skips the ``site`` module, so the editable install's import hook (a .pth file) is not loaded and
    ``nines_sim`` can only come from ``env_path``; numpy and the other dependencies still come from the venv.
    """
    site = sysconfig.get_paths()["purelib"]
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(env_path), site])}


def _seed_compiled_code(installed: Path) -> None:
    """File this checkout's compiled kernel and the tally's loops in the installed copy's ``__pycache__``, as numba
    would.

    Compiling the kernel from nothing costs most of a minute of CPU, and the tally's loops a few seconds, which the
    packaging question (does the installed copy find its modules and run) does not need; that the engine compiles
    and loads its cache is tests/test_compiled.py's job.  numba takes a cached file when the source's
    modification time and size match, so the installed sources get the checkout's times.
    """
    from nines_sim.game.rules import make_rules
    from nines_sim.results.tally import Tally
    from nines_sim.runs.simulate import simulate

    played = simulate(make_rules("classic"), ["random", "expert", "hold-nines", "dump-faces"], 4, seed=0)
    Tally.from_results(played)  # with the line above, fills the cache
    for module in ("engine/turn_loop", "strategy/per_game_compiled", "results/tally"):
        src = ROOT / "nines_sim" / f"{module}.py"
        dst = installed / f"{module}.py"
        st = src.stat()
        os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
        cache = dst.parent / "__pycache__"
        cache.mkdir(exist_ok=True)
        for f in (src.parent / "__pycache__").glob(f"{src.stem}.*.nb[ic]"):
            shutil.copy2(f, cache / f.name)


def test_installed_wheel_runs_a_tournament_outside_the_repository(wheel: Path, tmp_path: Path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    _seed_compiled_code(target / "nines_sim")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = _without_editable_install(target)
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import nines_sim.strategies as s; print(s.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().startswith(str(target))
    r = subprocess.run(
        [sys.executable, "-S", "-m", "nines_sim", "tournament", "-n", "1000", "--workers", "1", "--no-charts"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "1,000 matches" in r.stdout
    assert (work / "reports").is_dir()


def test_a_users_own_strategies_folder_does_not_shadow_the_builtins(tmp_path: Path):
    own = tmp_path / "strategies"
    own.mkdir()
    (own / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
    r = subprocess.run(
        [sys.executable, "-m", "nines_sim", "strategies"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    for name in ("random", "dump-faces", "hold-nines", "suit-majority", "expert"):
        assert name in r.stdout
