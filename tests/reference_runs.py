"""Playing the same matches on the compiled engine and on the plain-Python reference, and the configurations
``test_reference_agreement.py`` compares them under (see its docstring)."""

from __future__ import annotations

import zlib
from functools import cache

import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.reference import play_match
from nines_sim.game.rules import RulesError, make_rules
from tests.det_strategies import HighestPair, Lowest

LOW, HIGH = "det-lowest", "det-highest-pair"
BATCH = 37

# ------------------------------------------------------------------ configurations
# (preset spec, overrides as a tuple of pairs, players, lineup kind, seed, matches)
#: Matches per preset, table size and lineup: about 60 hands each (6,800 in all), every event compared.  The rare
#: paths are the rule combinations' (``COMBOS``), whose reach ``test_suite_reaches_rare_paths`` checks: at 20 the
#: presets' 13,700 hands reached none that 10 do not, for a third of the file's processor time more (issue 42).
MATCHES_PER_PRESET = 10


def lineup_of(kind: str, players: int) -> list[str]:
    if kind == "mixed":
        return [LOW if s % 2 == 0 else HIGH for s in range(players)]
    if kind == "mixed-hp-first":
        return [HIGH if s % 2 == 0 else LOW for s in range(players)]
    if kind == "lowest":
        return [LOW] * players
    if kind == "highest":
        return [HIGH] * players
    raise ValueError(kind)


def seed_of(*parts: object) -> int:
    """A fixed seed per configuration (spread over the 64-bit range)."""
    text = "|".join(map(str, parts)).encode()
    return (zlib.crc32(text) * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)


def rules_or_none(spec: str, players: int, overrides: tuple):
    try:
        return make_rules(spec, players=players, **dict(overrides))
    except RulesError:
        return None


def preset_cases(preset: str) -> list:
    cases = []
    for players in range(2, 7):
        for kind in ("mixed", "lowest"):
            if rules_or_none(preset, players, ()) is None:
                continue  # a combination make_rules rejects
            cases.append(
                pytest.param(
                    preset,
                    (),
                    players,
                    kind,
                    seed_of(preset, players, kind),
                    MATCHES_PER_PRESET,
                    id=f"{preset}-{players}p-{kind}",
                )
            )
    return cases


def combo_cases(spec: str, overrides: tuple, players_list, kinds, matches: int, tag: str) -> list:
    cases = []
    for players in players_list:
        for kind in kinds:
            if rules_or_none(spec, players, overrides) is None:
                continue
            cases.append(
                pytest.param(
                    spec,
                    overrides,
                    players,
                    kind,
                    seed_of(tag, spec, overrides, players, kind),
                    matches,
                    id=f"{tag}-{players}p-{kind}",
                )
            )
    return cases


# ------------------------------------------------------------------ running both sides
@cache
def run_both(spec: str, overrides: tuple, players: int, kind: str, seed: int, matches: int):
    """Play ``matches`` matches on both sides; return (mismatch messages, reference results)."""
    rules = make_rules(spec, players=players, **dict(overrides))
    names = lineup_of(kind, players)
    lo, hp = Lowest(), HighestPair()  # one instance per strategy class
    engine = CompiledEngine(
        rules, [lo if n == LOW else hp for n in names], seed, start=0, n_matches=matches, batch_size=BATCH, trace=True
    )
    res = engine.run()
    problems: list[str] = []
    refs = []
    where = f"rules={spec!r} overrides={dict(overrides)} players={players} lineup={names} seed={seed}"
    for m in range(matches):
        ref = play_match(rules, names, seed, m)
        refs.append(ref)
        # compared as decoded (plain ints, floats and tuples, as the reference's events are), with no conversion that
        # could make a different event pass: a list where a tuple is wanted compares unequal, an array raises
        got = [ev for ev in engine.trace.get(m, []) if ev[0] != "turn"]  # the reference marks no turns
        want = ref["events"]
        if got != want:
            i = next((j for j, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            lines = [f"{where} match={m}: first differing event #{i} (engine {len(got)} events, reference {len(want)})"]
            for j in range(max(0, i - 6), i + 3):
                g = got[j] if j < len(got) else "<none>"
                w = want[j] if j < len(want) else "<none>"
                mark = ">>" if j == i else "  "
                lines.append(f"{mark} #{j}: engine={g}\n{' ' * len(mark)}     refer.={w}")
            problems.append("\n".join(lines))
        summary_got = (
            tuple(int(t) for t in res.totals[m]),
            tuple(float(s) for s in res.win_share[m]),
            int(res.hands[m]),
            int(res.tiebreak_hands[m]),
        )
        summary_want = (ref["totals"], ref["shares"], ref["hands"], ref["tiebreak_hands"])
        if summary_got != summary_want:
            problems.append(
                f"{where} match={m}: (totals, shares, hands, tiebreak_hands) "
                f"engine={summary_got} reference={summary_want}"
            )
        if len(problems) >= 3:
            break
    return problems, refs


def check(spec, overrides, players, kind, seed, matches):
    problems, refs = run_both(spec, overrides, players, kind, seed, matches)
    assert not problems, "engine and reference disagree:\n\n" + "\n\n".join(problems)
    return refs
