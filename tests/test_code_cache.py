"""numba's on-disk cache of compiled code is stale when any file the code takes in changes, not only its own
(nines_sim.engine.code_cache): an edit of engine/bits.py or of a built-in's compiled decision alone used to leave
the turn loop's cached code running the old helper."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nines_sim.engine.turn_loop as K
from nines_sim.engine import deal, decisions, scoring, slot_locals, trace_log, turn_phases
from nines_sim.engine.code_cache import DigestCache, code_files
from nines_sim.search import sample_deal
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


def _run(tmp_path: Path, module: str) -> int:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return int(out.stdout.split()[-1])


def test_an_edit_of_a_helper_in_another_file_recompiles_a_sealed_function_only(tmp_path):
    helper = tmp_path / "helper.py"
    helper.write_text("from numba import njit\n\n@njit\ndef helper():\n    return 3\n")
    (tmp_path / "plain.py").write_text(CALLER.format(seal_import="", seal=""))
    (tmp_path / "sealed.py").write_text(
        CALLER.format(seal_import="from nines_sim.engine.code_cache import seal_module", seal="seal_module(globals())")
    )
    assert _run(tmp_path, "plain") == 6
    assert _run(tmp_path, "sealed") == 6
    helper.write_text("from numba import njit\n\n@njit\ndef helper():\n    return 5\n")
    assert _run(tmp_path, "plain") == 6  # numba's own cache: the caller's file did not change, the old code runs
    assert _run(tmp_path, "sealed") == 10


def test_every_cached_function_of_the_compiled_engine_is_keyed_by_the_files_it_takes_in():
    stages = (deal, turn_phases, decisions, scoring, slot_locals, trace_log)  # the loop's phases (compiled code)
    for module in (K, *stages, K.__dict__["stream"].py_func.__globals__, sample_deal, expert_compiled,
                   heuristics_compiled):  # fmt: skip
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
