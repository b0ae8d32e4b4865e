"""The forms of the compiled turn loop share their phases' compiled code (nines_sim.engine.bits.shared_inline): a
second form built after a first compiles only its own code and loads the phases the first compiled, as numba's
cache index files show (counted from the files, not by time). The phases used to be inlined by numba into every
form, copied and typed again in each (numba issues #8989, #9204): no phase had a cache index of its own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

#: Phases that every form of the classic shape runs, whatever the seats (the expert forms add expert's decision).
SHARED = {"turn_phase", "heuristic_phase", "apply_phase", "powers_phase", "end_hand_phase", "next_match_phase",
          "load_slot", "store_slot", "start_hand", "draw_card", "pair_legal", "builtin_decide"}  # fmt: skip

_INDEX = re.compile(r"(?P<module>[\w]+)\.(?P<function>\w+)-\d+\.py\d+\.nbi$")


def _build(cache: Path, form: str) -> list[str]:
    """Build a form in a fresh process on ``cache``; the functions numba compiled there."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    code = f"import json; from nines_sim.engine.build_forms import build; print(json.dumps(build({form!r})))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return [name.rpartition(".")[2] for name in json.loads(out.stdout.splitlines()[-1])]


def _indexes(cache: Path) -> dict[str, bytes]:
    """Every cache index file under ``cache``, by function name, with its bytes (its list of compiled
    signatures)."""
    found = {}
    for path in cache.rglob("*.nbi"):
        m = _INDEX.match(path.name)
        if m and m["module"] in ("turn_phases", "decisions", "scoring", "slot_locals", "turn_loop"):
            found[m["function"]] = path.read_bytes()
    return found


def test_a_second_form_loads_the_phases_the_first_compiled_and_compiles_only_its_own_code(tmp_path):
    first = _build(tmp_path, "classic")
    after_first = _indexes(tmp_path)
    assert SHARED <= set(first)  # compiled apart, once ...
    assert SHARED <= set(after_first)  # ... and each cached under an index of its own
    assert "play_slots_classic" in after_first

    second = _build(tmp_path, "classic-expert")
    after_second = _indexes(tmp_path)
    assert "play_slots_classic_expert" in second and "decide_phase_expert" in second
    assert not SHARED & set(second)  # loaded, not compiled again
    written = {f for f, data in after_second.items() if after_first.get(f) != data}
    assert written == {"play_slots_classic_expert", "decide_phase_expert"}  # its own loop and decision phase only
    assert all(after_second[f] == after_first[f] for f in SHARED)


def test_nines_warm_up_builds_every_form_and_says_so():
    out = subprocess.run([sys.executable, "-m", "nines_sim", "warm-up", "--workers", "2"], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert re.search(r"^5 forms of the compiled engine ready in [\d.]+ s \(\d compiled, \d already built\)",
                     out.stdout, re.M), out.stdout  # fmt: skip
    for form in ("classic-expert", "classic", "general-expert", "general", "trace"):
        assert re.search(rf"^{form}: (compiled in \d+ s of processor time|already built)$", out.stderr, re.M), form
    usage = subprocess.run([sys.executable, "-m", "nines_sim", "warm-up", "--workers", "0"], capture_output=True,
                           text=True)  # fmt: skip
    assert usage.returncode == 2 and len(usage.stderr.strip().splitlines()) == 1
