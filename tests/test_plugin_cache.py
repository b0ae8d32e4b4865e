"""A compiled plug-in's on-disk cache: later runs load it, and never load code that is stale or from elsewhere.

Each run is a fresh process (the fault was a module name that changed from process to process). The
plug-in and its helper are written to a new folder per test, so their cache starts empty there whatever
the state of the engine's own cache. Each run plays the same matches twice on the compiled engine: once
with the plug-in as a Python seat, asked through the broker (``decide`` compiled afresh in every process),
once as a compiled seat, which uses the cache, so a stale cache shows as a disagreement.
Each process costs about 1.7 s of processor time (its imports and numba's set-up, more than its matches), so
each run checks all it can: the run after the module form's also checks that the file's name and entry lasted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HELPER = """\
from numba import njit

LOW = sum(0x1F << (13 * suit) for suit in range(4))  # A-5 of every suit


@njit
def preferred(legal):
    return legal & LOW
"""

PLUGIN = """\
import numpy as np

from helpers import preferred
from nines_sim.strategy.per_game_compiled import (
    G_CARD, G_LEGAL, PLAY, PLAY_DRAWN, CompiledStrategy, pick_card, random_word,
)


def lowest_first(kind, g, hand, hand_sizes, totals, drew_on):
    if kind == PLAY:
        legal = g[G_LEGAL]
        choose = preferred(legal) if preferred(legal) != 0 else legal
        return pick_card(np.int64(hand[0]) & choose, np.int64(hand[1]) & choose, random_word(g, kind, 0))
    if kind == PLAY_DRAWN:
        return 1
    return 0


class LowestFirstCompiled(CompiledStrategy):
    name = "lowest-first-compiled"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}
    decide = lowest_first
"""

# One run: which module the class came from, whether decide came from the cache, and the matches played.
PROBE = """\
import json, sys
import numpy as np
from nines_sim.engine import seats, turn_loop as K
from nines_sim.engine.batch import CompiledEngine
from nines_sim.strategy.per_game_compiled import compiled_function
from nines_sim.strategy.registry import make_lineup
from nines_sim.game.rules import make_rules

players = make_lineup([sys.argv[1], "random", "dump-faces"])
rules = make_rules("classic", players=3)
a = CompiledEngine(rules, players, 11, 0, 60).run()
# the same class asked in Python, through the broker (its decide run as Python code, not the cached callback)
ids = seats.seat_ids
seats.seat_ids = lambda lineup: np.where(ids(lineup) == K.SID_USER, K.SID_PYTHON, ids(lineup))
b = CompiledEngine(rules, players, 11, 0, 60, batch_size=60).run()
seats.seat_ids = ids
print(json.dumps({
    "module": type(players[0]).__module__,
    "from_cache": compiled_function(players[0]).cache_hits,
    "engines_agree": a.totals.tobytes() == b.totals.tobytes(),
    "cache_path": compiled_function(players[0])._cache.cache_path,
    "totals": a.totals.tolist(),
}))
"""


def run(folder: Path, spec: str) -> dict:
    """Play the probe in a new process started in ``folder`` (so ``helpers`` and ``plugin`` import from it)."""
    out = subprocess.run([sys.executable, "-c", PROBE, spec], cwd=folder, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_compiled_file_plugin_runs_again_by_file_and_by_module_and_recompiles_after_edits(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN)
    by_file, by_module = f"{plugin}:LowestFirstCompiled", "plugin:LowestFirstCompiled"

    first = run(tmp_path, by_file)
    assert first["module"].startswith("nines_user_plugin_") and first["engines_agree"]
    assert first["from_cache"] == 0  # a new folder: compiled, then cached

    # an edit of the file recompiles: keep a drawn card instead of playing it
    plugin.write_text(PLUGIN.replace("        return 1\n", "        return 0\n"))
    edited = run(tmp_path, by_file)
    assert edited["from_cache"] == 0 and edited["engines_agree"] and edited["totals"] != first["totals"]

    # so does an edit of a helper in another file, which numba's own cache does not watch: prefer 9-K instead
    (tmp_path / "helpers.py").write_text(HELPER.replace("0x1F << (13 * suit)", "0x1F00 << (13 * suit)"))
    helper_edited = run(tmp_path, by_file)
    assert helper_edited["from_cache"] == 0 and helper_edited["engines_agree"]
    assert helper_edited["totals"] != edited["totals"]

    # the same file as module:Class has its own cache entry, and leaves the file form's usable: a later process
    # imports the file under the same name and loads its code (each run a process of its own: a run that loaded
    # the file form as well would have had the module form's imports done for it)
    module = run(tmp_path, by_module)
    assert module["module"] == "plugin" and module["engines_agree"] and module["totals"] == helper_edited["totals"]
    again = run(tmp_path, by_file)
    assert again["module"] == first["module"]  # the same name in every process
    assert again["from_cache"] == 1 and again["engines_agree"] and again["totals"] == helper_edited["totals"]

    # a cache entry that cannot be read is compiled again, not a failed run
    data = sorted(Path(again["cache_path"]).glob("plugin.lowest_first-*.nbc"))
    assert data
    for f in data:
        f.write_bytes(f.read_bytes()[:40])
    damaged = run(tmp_path, by_file)
    assert damaged["from_cache"] == 0 and damaged["totals"] == helper_edited["totals"]
