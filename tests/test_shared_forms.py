"""The forms of the compiled turn loop share their phases' compiled code (nines_sim.engine.bits.shared_inline): a
second form built after a first compiles only its own code and loads the phases the first compiled, as numba's
cache index files show (counted from the files, not by time). The phases used to be inlined by numba into every
form, copied and typed again in each (numba issues #8989, #9204): no phase had a cache index of its own."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.build_forms import FORMS, build
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup
from tests.signatures import signatures_asked

#: Phases that every form of the classic shape runs, whatever the seats (the expert forms add expert's decision, and
#: their turn phase keeps the draw log for a Python seat).
SHARED = {"heuristic_phase", "apply_phase", "powers_phase", "end_hand_phase", "next_match_phase",
          "load_slot", "store_slot", "start_hand", "draw_card", "pair_legal", "builtin_decide"}  # fmt: skip

_INDEX = re.compile(r"(?P<module>[\w]+)\.(?P<function>\w+)-\d+\.py\d+\.nbi$")


#: Run in a fresh process: build a form, then say what numba compiled and, for each function of the loop's stages,
#: how many signatures this process asked for (compiled or loaded).
BUILD = """
import json, sys
from numba.core.dispatcher import Dispatcher
from nines_sim.engine.build_forms import build
compiled = build({form!r})
stages = [m for n, m in sys.modules.items() if n.rpartition(".")[2] in {stages!r}]
asked = {{f.__name__: len(f.overloads) for m in stages for f in vars(m).values() if isinstance(f, Dispatcher)}}
print(json.dumps([compiled, asked]))
"""
STAGES = ("turn_phases", "decisions", "scoring", "slot_locals", "deal", "turn_loop")


def _build(cache: Path, form: str) -> tuple[list[str], dict[str, int]]:
    """Build a form in a fresh process on ``cache``; the functions numba compiled there, and the signatures asked
    for of each function of the loop's stages."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    code = BUILD.format(form=form, stages=STAGES)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    compiled, asked = json.loads(out.stdout.splitlines()[-1])
    return [name.rpartition(".")[2] for name in compiled], asked


def _indexes(cache: Path) -> dict[str, bytes]:
    """Every cache index file under ``cache``, by function name, with its bytes (its list of compiled
    signatures)."""
    found = {}
    for path in cache.rglob("*.nbi"):
        m = _INDEX.match(path.name)
        if m and m["module"] in ("turn_phases", "decisions", "scoring", "slot_locals", "turn_loop"):
            found[m["function"]] = path.read_bytes()
    return found


def _copy_cache_without(cache: Path, own: set[str]) -> None:
    """File this checkout's compiled code in ``cache`` as numba files it there (``NUMBA_CACHE_DIR``), but for the
    functions named in ``own``: the cache a first form built leaves, without compiling it again (a cold compile is a
    quarter of a minute of processor time)."""
    from numba.core.caching import _CacheLocator
    from numba.core.dispatcher import Dispatcher

    import nines_sim.engine.turn_loop  # noqa: F401 - the loop and every module it compiles in

    folders = {}
    for module in [m for name, m in sys.modules.items() if name.startswith("nines_sim")]:
        for fn in vars(module).values():
            if isinstance(fn, Dispatcher) and getattr(getattr(fn, "_cache", None), "_cache_path", None):
                src = fn.py_func.__code__.co_filename
                folders[Path(fn._cache._cache_path)] = cache / _CacheLocator.get_suitable_cache_subpath(src)
    for here, there in folders.items():
        there.mkdir(parents=True, exist_ok=True)
        for f in here.glob("*.nb[ic]"):
            if f.name.split("-")[0].rpartition(".")[2] not in own:
                shutil.copy2(f, there / f.name)


def test_a_second_form_loads_the_phases_the_first_compiled_and_compiles_only_its_own_code(tmp_path):
    own = {"play_slots_classic_expert", "decide_phase_expert", "turn_phase"}  # the default tournament's form's own
    # the first form and the second in this checkout's cache (loaded if built already; in this process, which
    # needs only that their files be there: a process each cost its imports and loading, 2 s of processor time) ...
    build("classic")
    build("classic-expert")
    _copy_cache_without(tmp_path, own)  # ... and a cache as the first alone leaves it
    after_first = _indexes(tmp_path)
    assert SHARED <= set(after_first)  # compiled apart, each cached under an index of its own
    assert "play_slots_classic" in after_first and not own & set(after_first)

    second, asked = _build(tmp_path, "classic-expert")
    after_second = _indexes(tmp_path)
    assert {"play_slots_classic_expert", "decide_phase_expert", "turn_phase"} <= set(second)
    assert not SHARED & set(second)  # loaded, not compiled again
    written = {f for f, data in after_second.items() if after_first.get(f) != data}
    assert written == own  # its own loop, decision phase and turn phase only
    assert all(after_second[f] == after_first[f] for f in SHARED)
    # the loop asks each phase for one signature: a count that began as the literal 0 (the matches started) made
    # numba also compile next_match_phase for the constant 0, which no call uses
    assert {"next_match_phase", "end_hand_phase", "turn_phase"} <= {f for f, n in asked.items() if n}
    assert all(n <= 1 for n in asked.values()), asked


def test_nines_warm_up_builds_every_form_and_says_so():
    out = subprocess.run([sys.executable, "-m", "nines_sim", "warm-up", "--workers", "2"], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert re.search(rf"^{len(FORMS)} forms of the compiled engine ready in [\d.]+ s \(\d compiled, \d already built\)",
                     out.stdout, re.M), out.stdout  # fmt: skip
    for form in FORMS:
        assert re.search(rf"^{form}: (compiled in \d+ s of processor time|already built)$", out.stderr, re.M), form
    # the usage error in this process (a process of its own cost its start and imports, 0.5 s of processor time):
    # its exit status and its one line, as the tests of other usage errors read them
    from typer.testing import CliRunner

    from nines_sim.cli import app
    from tests.test_output_paths import one_error_line

    assert "--workers" in one_error_line(CliRunner().invoke(app, ["warm-up", "--workers", "0"]))


def test_nines_warm_up_forks_its_building_processes_after_loading_numba_s_tables_and_before_its_bar(monkeypatch):
    """``nines warm-up`` loads numba's tables once and forks its building processes from itself (each started as an
    interpreter loaded them again, about 1 s of processor time each) before its progress bar exists: tqdm's monitor
    thread would make :class:`~nines_sim.engine.build_forms.BuildForms` start interpreters.  Its lines are said."""
    from tqdm import tqdm
    from typer.testing import CliRunner

    from nines_sim.cli import app
    from nines_sim.engine import build_forms

    order = []

    class Building:  # a stand-in that builds nothing: what warm-up asks of it, and when
        def __init__(self, workers, on_built, forms=None, apart=False, lanes=None, fork=False):  # noqa: ANN001
            order.append(("build", workers, fork, len(tqdm._instances)))
            self.on_built = on_built

        def wait(self) -> list:
            done = [build_forms.Built(form, False, 0.0) for form in FORMS]
            for b in done:
                self.on_built(b)
            return done

    monkeypatch.setattr(build_forms, "ready_to_fork", lambda form: order.append(("tables", form in build_forms.ROOTS)))
    monkeypatch.setattr(build_forms, "BuildForms", Building)
    r = CliRunner().invoke(app, ["warm-up", "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert order == [("tables", True), ("build", 2, True, 0)]  # tables first, then forked, and no bar yet
    assert all(f"{form}: already built" in r.output for form in FORMS), r.output


def test_the_trace_form_asks_its_loggers_and_the_pair_s_helpers_for_one_signature_each():
    """The trace form (replays, play, analyze, the luck walk) asks each event logger, and the general forms the V4
    pair's helpers, for one signature (issue 42): event kinds passed as global ints and unused columns as a literal
    0 made numba compile ``log_event`` once per constant it was passed (nine times), ``log_seats`` three times,
    ``traced_draw`` and ``draw_card_trace`` twice; a pair's 9 that began as the literal -1 compiled
    ``remove_from_hand`` and ``add_under`` once more.  Counted from numba's typing, not timed."""
    from nines_sim.engine import deal, decisions, scoring, slot_locals, trace_log, turn_loop, turn_phases

    played = CompiledEngine(make_rules("double-nines", players=3), make_lineup(["random"] * 3), 0, 0, 1, trace=True)
    played.run()  # the trace form, compiled or loaded from the cache
    loop = turn_loop.play_slots_trace
    asked = signatures_asked([(loop, sig) for sig in loop.signatures],
                             [deal, decisions, scoring, slot_locals, trace_log, turn_phases])  # fmt: skip
    assert {"log_event", "log_seats", "traced_draw", "draw_card_trace", "remove_from_hand", "add_under"} <= set(asked)
    assert all(len(sigs) == 1 for sigs in asked.values()), {f: s for f, s in asked.items() if len(s) > 1}


def test_a_python_seat_under_classic_rules_plays_the_default_tournament_s_form():
    """A table with a Python seat (the search, reviews, training) under rules of the classic shape plays the classic
    form with ``expert``, which keeps the draw log its seat reads: the form a first default tournament compiled
    (issue 42).  It played the general form, compiled anew by a first ``lookahead`` table (9 s of its 15)."""
    from nines_sim.engine import turn_loop as K
    from tests.det_strategies import Lowest

    for preset, form in (("classic", K.play_slots_classic_expert), ("skip-reverse", K.play_slots_expert)):
        engine = CompiledEngine(make_rules(preset, players=2), [Lowest(), make_lineup(["random"])[0]], 0, 0, 4)
        assert engine._play is form, preset
        engine = CompiledEngine(make_rules(preset, players=2), make_lineup(["expert", "random"]), 0, 0, 4)
        assert engine._play is form, preset
    no_log = CompiledEngine(make_rules("classic", players=2), make_lineup(["random", "dump-faces"]), 0, 0, 4)
    assert no_log._play is K.play_slots_classic
