"""numba's on-disk cache of compiled code is stale when any file the code takes in changes, not only its own
(nines_sim.engine.code_cache): an edit of engine/bits.py or of a built-in's compiled decision alone used to leave
the turn loop's cached code running the old helper.  A second process loads the turn loop from the cache, and a
read-only install keeps its compiled code in the user's cache folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import nines_sim.engine.turn_loop as K
from nines_sim.engine import deal, decisions, scoring, slot_locals, slot_records, trace_log, turn_phases
from nines_sim.engine.code_cache import DigestCache, code_files
from nines_sim.search import sample_deal, sample_keys
from nines_sim.strategies import expert_compiled, heuristics_compiled

CALLER = """
from numba import njit
from helper import helper
{seal_import}

@njit(cache=True)
def twice():
    return 2 * helper()
{seal}
print(twice())
"""


def _run(tmp_path: Path, *modules: str) -> list[int]:
    """Import ``modules`` in one new process, in that order, on the test's own cache; what each printed."""
    # no .pyc of the test's files: Python takes one as fresh by the source's size and mtime in whole seconds, so the
    # helper edited within the second of the first process, to a text of the same size, ran its old code
    env = dict(
        os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1"
    )
    code = "; ".join(f"import {m}" for m in modules)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return [int(x) for x in out.stdout.split()]


def test_an_edit_of_a_helper_in_another_file_recompiles_a_sealed_function_only(tmp_path):
    """Both callers cached by a first process and, after the edit, loaded or compiled again by a second (a process
    for each caller each time cost its start and numba's import again: about a second of processor time each);
    each caller has its own cache entry, which the other's import neither reads nor writes."""
    helper = tmp_path / "helper.py"
    helper.write_text("from numba import njit\n\n@njit\ndef helper():\n    return 3\n")
    (tmp_path / "plain.py").write_text(CALLER.format(seal_import="", seal=""))
    (tmp_path / "sealed.py").write_text(
        CALLER.format(seal_import="from nines_sim.engine.code_cache import seal_module", seal="seal_module(globals())")
    )
    assert _run(tmp_path, "plain", "sealed") == [6, 6]
    helper.write_text("from numba import njit\n\n@njit\ndef helper():\n    return 5\n")
    # plain: numba's own cache (the caller's file did not change: the old code runs); sealed: compiled again
    assert _run(tmp_path, "plain", "sealed") == [6, 10]


def test_every_cached_function_of_the_compiled_engine_is_keyed_by_the_files_it_takes_in():
    stages = (deal, turn_phases, decisions, scoring, slot_locals, trace_log)  # the loop's phases (compiled code)
    for module in (K, *stages, K.__dict__["stream"].py_func.__globals__, sample_deal, sample_keys, slot_records,
                   expert_compiled, heuristics_compiled):  # fmt: skip
        names = module if isinstance(module, dict) else vars(module)
        cached = [v for v in names.values() if getattr(getattr(v, "_cache", None), "_cache_file", None) is not None]
        cached = [v for v in cached if v.py_func.__module__ == names["__name__"]]
        assert cached, names["__name__"]
        for v in cached:
            assert isinstance(v._cache, DigestCache), (names["__name__"], v.py_func.__name__)
    # the files of the functions the loop calls; the constants it reads (codes.py, slots.py) count by value
    files = {Path(f).name for f in code_files(K.play_slots_classic_expert)[0]}
    assert {"turn_loop.py", "bits.py", "expert_compiled.py", "heuristics_compiled.py"} <= files
    assert {"deal.py", "turn_phases.py", "decisions.py", "scoring.py", "slot_locals.py", "trace_log.py"} <= files


# ------------------------------------------------------------------ the cache across processes and installs
ROOT = Path(__file__).resolve().parents[1]
PROBE = textwrap.dedent(
    """
    import json, sys
    from nines_sim.engine import turn_loop as kernel
    from nines_sim.runs.simulate import simulate
    from nines_sim.game.rules import make_rules
    r = simulate(make_rules("classic"), ["random", "expert", "hold-nines", "dump-faces"], 30, seed=4)
    st = kernel.play_slots_classic_expert.stats  # the form classic rules play on with an expert seat
    print(json.dumps({"hits": sum(st.cache_hits.values()), "misses": sum(st.cache_misses.values()),
                      "path": st.cache_path, "totals": r.totals.sum(axis=0).tolist()}))
    """
)


# root may write anywhere, so a read-only folder is read-only to it only where os.access says so
AS_IF_READ_ONLY = textwrap.dedent(
    """
    import os
    _access = os.access
    def _ro(p, mode, **kw):
        return False if mode == os.W_OK and str(p).startswith({site!r}) else _access(p, mode, **kw)
    os.access = _ro
    """
)


def _probe(env: dict, cwd: Path, read_only: Path | None = None) -> dict:
    import json

    code = (AS_IF_READ_ONLY.format(site=str(read_only)) if read_only else "") + PROBE
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def checkout_totals() -> list[int]:
    """:data:`PROBE`'s run in this process, on this checkout's cache (which it fills, compiling only if nothing is
    cached yet): its totals.  The later process of each test below loads what it left there; a first process of
    the probe for each test (twice in the read-only test: before, and for the totals after) cost its start, numba's
    import and the kernel's loading, about 1.4 s of processor time each."""
    from nines_sim.game.rules import make_rules
    from nines_sim.runs.simulate import simulate

    r = simulate(make_rules("classic"), ["random", "expert", "hold-nines", "dump-faces"], 30, seed=4)
    return r.totals.sum(axis=0).tolist()


def test_a_second_process_loads_the_compiled_kernel_from_the_cache(checkout_totals):
    second = _probe(dict(os.environ), ROOT)  # a process after the one (this) that filled the cache
    assert second["hits"] >= 1 and second["misses"] == 0, second
    assert second["totals"] == checkout_totals


def _checkout_cache(source: Path) -> Path:
    """Where numba keeps this checkout's compiled code of ``source``: under a user's ``NUMBA_CACHE_DIR`` where one
    is set (numba's ``UserProvidedCacheLocator``), else beside the source (a new user's run with it set failed)."""
    from numba.core.caching import _CacheLocator

    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / _CacheLocator.get_suitable_cache_subpath(str(source))
    return source.parent / "__pycache__"


def test_a_read_only_install_uses_the_user_cache_dir(tmp_path, checkout_totals):
    """A copy of the package in a read-only folder reads and writes its compiled code in $XDG_CACHE_HOME/nines-sim.

    Compiling from nothing takes minutes on a busy 2-core machine, so the user cache is
    seeded with this checkout's compiled files, filed where numba looks for the copy's code
    (the copy keeps the files' times, which is what numba checks); that a second process
    loads rather than compiles is the test above.
    """
    from numba.core.caching import _CacheLocator

    # this checkout's cache is filled (checkout_totals)
    site = tmp_path / "site"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "nines_sim", site / "nines_sim", ignore=skip)
    shutil.copytree(ROOT / "strategies", site / "nines_sim" / "strategies", ignore=skip)
    user_cache = tmp_path / "cache" / "nines-sim"
    seeded = user_cache / _CacheLocator.get_suitable_cache_subpath(str(site / "nines_sim" / "engine" / "turn_loop.py"))
    seeded.mkdir(parents=True)
    for f in _checkout_cache(ROOT / "nines_sim" / "engine" / "turn_loop.py").glob("turn_loop.*.nb[ic]"):
        shutil.copy2(f, seeded / f.name)
    for d, _, files in os.walk(site):
        for name in files:
            os.chmod(Path(d) / name, 0o444)
        os.chmod(d, 0o555)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"))
    try:
        got = _probe(env, tmp_path, read_only=site)
    finally:
        for d, _, _ in os.walk(site):
            os.chmod(d, 0o755)
    assert got["path"].startswith(str(user_cache)), got["path"]
    assert got["hits"] >= 1 and got["misses"] == 0, got
    assert not (site / "nines_sim" / "engine" / "__pycache__").exists() or not any(
        p.suffix in (".nbi", ".nbc") for p in (site / "nines_sim" / "engine" / "__pycache__").iterdir()
    )
    assert got["totals"] == checkout_totals
