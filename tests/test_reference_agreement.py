"""The compiled engine agrees, move for move, with the plain-Python reference player.

``nines_sim/game/reference/`` replays whole matches one card at a time from RULES.md and the
engine's documented conventions (random keys, deal order, reshuffle order, event
format), without numpy and without the engine's code.  Each test here plays the same
matches of one seed through ``nines_sim.engine.batch.CompiledEngine`` (traced, in batches of 37)
and through the reference (both sides: ``tests/reference_runs.py``), with the deterministic strategies of
``tests/det_strategies.py`` and their twins in the reference, and compares per match:
the full event list, the final totals, the win shares, the regular hands and the
tie-break hands.  On a mismatch the failure names the rules, lineup, seed and match and
shows the first differing event with its context.

Coverage: every preset x 2..6 players x {mixed, all det-lowest} lineups, plus rule
combinations chosen to reach the rare paths (passes, reshuffles of a crowded deck,
blocked and capped hands, a block on the cap turn, tie-break hands several deep,
shared wins); ``test_suite_reaches_rare_paths`` checks that they were reached.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.reference import decision_word
from nines_sim.game.rules import PRESETS, make_rules
from nines_sim.strategy.base import DecisionKind
from tests.det_strategies import Lowest
from tests.reference_runs import check, combo_cases, preset_cases, run_both

# ------------------------------------------------------------------ presets x players x lineups
COVERED_PRESETS: set[str] = set()


def _presets(*names):
    COVERED_PRESETS.update(names)
    return [c for n in names for c in preset_cases(n)]


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("classic"))
def test_P1_C1_C2_D1_D7_T1_T4_T5_T7_S1_S2_S4_reference_agrees_classic(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("free-nines"))
def test_P2_T7_S4_reference_agrees_free_nines(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("hard-nines"))
def test_V1_C2_reference_agrees_hard_nines(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("draw-until-playable"))
def test_V2_T5_reference_agrees_draw_until_playable(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("skip-reverse"))
def test_V3_reference_agrees_skip_reverse(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("double-nines"))
def test_V4_C1_T5_reference_agrees_double_nines(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("no-nine-out"))
def test_V5_O1_reference_agrees_no_nine_out(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", _presets("no-stacking"))
def test_V6_D6_reference_agrees_no_stacking(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize(
    "spec,overrides,players,kind,seed,matches", _presets("fixed-hands-5", "fixed-hands-7", "fixed-hands-10")
)
def test_S3_V7_reference_agrees_fixed_hands(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


def test_every_preset_is_compared_with_the_reference():
    assert COVERED_PRESETS == set(PRESETS), sorted(set(PRESETS) ^ COVERED_PRESETS)


# ------------------------------------------------------------------ rule combinations
ALL_P = range(2, 7)
MIXED_AND_LOW = ("mixed", "lowest")

COMBOS = {
    # V1 + V5 (RULES.md: options combine, e.g. hard-nines with no-nine-out)
    "nonineout_hard": combo_cases("no-nine-out+hard-nines", (), ALL_P, MIXED_AND_LOW, 12, "v5v1"),
    # V2 + V3 + V4 together
    "dbl_skip_until": combo_cases(
        "double-nines+skip-reverse+draw-until-playable", (), ALL_P, ("mixed", "mixed-hp-first"), 12, "v2v3v4"
    ),
    # P2 with a low target: blocks by no-play circles and shared wins
    "free_share": combo_cases("free-nines", (("target", 30),), ALL_P, ("mixed", "highest"), 30, "p2share"),
    # T8: a tiny turn cap, so that many hands are capped (also a tie-break hand capped)
    "cap15": combo_cases("classic", (("turn_cap", 15),), ALL_P, MIXED_AND_LOW, 16, "cap15")
    + combo_cases("double-nines+skip-reverse", (("turn_cap", 15), ("target", 30)), ALL_P, ("mixed",), 16, "cap15dsr"),
    # S4 with target 30: more matches end in ties, so more tie-break hands
    "target30": combo_cases("classic", (("target", 30),), ALL_P, ("mixed", "mixed-hp-first"), 40, "t30"),
    # S4 playoffs several deep: one regular hand of 2 cards each, capped after 2 turns, so the
    # lowest totals tie often and blocked/capped tie-break hands tie again.
    "playoff_deep": combo_cases(
        "classic",
        (("fixed_hands", 1), ("turn_cap", 2), ("nine_penalty", 10), ("hand_sizes", (2, 2, 2, 2, 2))),
        range(3, 7),
        ("mixed", "lowest"),
        150,
        "deep",
    )
    + combo_cases(
        "no-stacking",
        (("fixed_hands", 2), ("turn_cap", 1), ("nine_penalty", 10), ("hand_sizes", (1, 1, 1, 1, 1))),
        ALL_P,
        ("mixed",),
        150,
        "deep1",
    ),
    # T7 vs T8 on the same turn: a no-play circle of 2 or 3 turns with a cap of 2 or 3 turns
    "block_at_cap": combo_cases(
        "free-nines",
        (("turn_cap", 2), ("fixed_hands", 3), ("hand_sizes", (3, 3, 3, 3, 3))),
        (2,),
        ("mixed", "lowest"),
        60,
        "bc2",
    )
    + combo_cases(
        "free-nines",
        (("turn_cap", 3), ("fixed_hands", 3), ("hand_sizes", (3, 3, 3, 3, 3))),
        (3,),
        ("mixed", "lowest"),
        60,
        "bc3",
    ),
    # T5/T6: nearly the whole deck dealt, so the stock runs out and is rebuilt all the time and
    # players pass when nothing can be rebuilt.
    "crowded": combo_cases(
        "draw-until-playable+no-stacking",
        (("hand_sizes", (25, 16, 12, 5, 5)),),
        (2, 3, 4),
        ("mixed", "mixed-hp-first"),
        12,
        "crowd-v2",
    )
    + combo_cases(
        "no-stacking+no-nine-out", (("hand_sizes", (25, 17, 12, 5, 5)),), (2, 3, 4), ("mixed",), 12, "crowd-v5"
    )
    + combo_cases(
        "double-nines+skip-reverse",
        (("hand_sizes", (50, 34, 25, 20, 17)), ("turn_cap", 400)),
        ALL_P,
        ("mixed",),
        8,
        "crowd-v4",
    ),
    # Passes under draw_rule "one" and a pair of 9s that goes out are rare with these strategies;
    # these fixed seeds reach them (match 9 / 13 and match 20 respectively) with nearly the whole
    # deck dealt (the most cards each that 1 or 2 decks allow).
    "rare": [
        pytest.param(
            "skip-reverse",
            (("hand_sizes", (25, 17, 12, 10, 8)), ("turn_cap", 300)),
            3,
            "lowest",
            103,
            25,
            id="pass-one-v3-3p",
        ),
        pytest.param(
            "no-stacking+skip-reverse",
            (("hand_sizes", (25, 17, 12, 10, 8)), ("turn_cap", 300)),
            5,
            "mixed",
            62,
            25,
            id="pass-one-v3v6-5p",
        ),
        pytest.param(
            "double-nines+no-stacking",
            (("hand_sizes", (51, 34, 25, 20, 17)), ("turn_cap", 300)),
            6,
            "highest",
            60,
            25,
            id="pair-out-v4v6-6p",
        ),
    ],
    # more pairings of options (RULES.md: options combine)
    "more": combo_cases("double-nines+no-nine-out+no-stacking", (), ALL_P, ("highest", "mixed"), 10, "v4v5v6")
    + combo_cases("free-nines+hard-nines+skip-reverse", (), ALL_P, ("mixed",), 10, "p2v1v3")
    + combo_cases("draw-until-playable+no-nine-out+fixed-hands-5", (), ALL_P, ("mixed-hp-first",), 10, "v2v5s3")
    + combo_cases("double-nines+free-nines+draw-until-playable", (("target", 50),), ALL_P, ("mixed",), 10, "v4p2v2"),
    # the seeds at the top of the 64-bit range (their decimal forms are hashed into the roots)
    "top_seed": [
        pytest.param("classic", (), 4, "mixed", (1 << 64) - 1, 20, id="seed-2**64-1"),
        pytest.param("double-nines", (), 5, "mixed", (1 << 64) - 2, 20, id="seed-2**64-2"),
    ],
}


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["nonineout_hard"])
def test_V1_V5_reference_agrees_no_nine_out_with_hard_nines(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["dbl_skip_until"])
def test_V2_V3_V4_reference_agrees_double_nines_skip_reverse_draw_until_playable(
    spec, overrides, players, kind, seed, matches
):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["free_share"])
def test_P2_T7_S4_reference_agrees_free_nines_shared_wins(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["cap15"])
def test_T8_reference_agrees_turn_cap_15(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["target30"])
def test_S2_S4_reference_agrees_target_30_tie_breaks(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["playoff_deep"])
def test_S4_T8_reference_agrees_repeated_tie_break_hands(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["block_at_cap"])
def test_T7_T8_reference_agrees_block_and_cap_on_one_turn(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["crowded"])
def test_T5_T6_reference_agrees_crowded_deck_reshuffles_and_passes(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["rare"])
def test_T6_V4_reference_agrees_rare_passes_and_pair_going_out(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["more"])
def test_V1_V2_V3_V4_V5_V6_P2_S3_reference_agrees_more_option_combinations(
    spec, overrides, players, kind, seed, matches
):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("spec,overrides,players,kind,seed,matches", COMBOS["top_seed"])
def test_D2_D5_reference_agrees_at_the_top_of_the_seed_range(spec, overrides, players, kind, seed, matches):
    check(spec, overrides, players, kind, seed, matches)


@pytest.mark.parametrize("seed", [12345, (1 << 64) - 1])
def test_D2_strategies_random_words_follow_the_documented_decision_chain(seed):
    """``obs.random(salt)`` is the word the reference derives from the decision root (nines_sim.game.rng)."""
    e = CompiledEngine(make_rules("classic"), [Lowest()] * 4, seed, 3, 20, batch_size=20)
    e.start_run()
    for _ in range(9):
        e.advance()
    idx = np.arange(e.B)
    for kind in DecisionKind:
        for salt in (0, 5, 63):
            got = e.observe(idx, e.seat, kind).random(salt).tolist()
            want = [
                decision_word(seed, int(e.match[b]), int(e.hand_seq[b]) - 1, int(kind), int(e.turn[b]), salt)
                for b in idx.tolist()
            ]
            assert got == want, (kind, salt)


# ------------------------------------------------------------------ the suite is not vacuous
def _all_cases():
    out = []
    for name in sorted(COVERED_PRESETS):
        out += preset_cases(name)
    for cases in COMBOS.values():
        out += cases
    return [c.values for c in out]


def _features(rules_spec_overrides, refs) -> Counter:
    """Count the rare paths one configuration's reference matches went through."""
    spec, overrides, players = rules_spec_overrides
    rules = make_rules(spec, players=players, **dict(overrides))
    f: Counter = Counter()
    for ref in refs:
        ev = ref["events"]
        f["matches"] += 1
        f["tiebreak_hands"] += ref["tiebreak_hands"]
        if ref["tiebreak_hands"] >= 2:
            f["tiebreak_repeated"] += 1
        if any(0 < s < 1 for s in ref["shares"]):
            f["shared_win"] += 1
        turns = 0  # turns of the current hand (counted exactly for draw_rule "one")
        for i, e in enumerate(ev):
            kind = e[0]
            f[kind] += 1
            if kind == "deal":
                turns = 0
            elif kind in ("draw", "pass", "pair") or (
                kind == "play" and not (ev[i - 1][0] == "draw" and ev[i - 1][1:3] == e[1:3])
            ):
                turns += 1
            if kind == "end" and e[1] == -1 and rules.draw_rule == "one" and turns == rules.turn_cap:
                f["blocked_on_cap_turn"] += 1
            if kind == "end":
                f["hands"] += 1
                f[{-1: "blocked", -2: "capped"}.get(e[1], "went_out")] += 1
                prev = ev[i - 1]
                if e[1] >= 0 and prev[0] == "play" and prev[2] % 13 == 8:
                    f["out_with_nine"] += 1
                if e[1] >= 0 and prev[0] == "pair":
                    f["out_with_pair"] += 1
                if e[1] == -2 and (
                    prev[0] == "pair" or (rules.skip_reverse and prev[0] == "play" and prev[2] % 13 in (0, 10, 11))
                ):
                    f["power_card_on_cap_turn"] += 1
                if e[1] == -1 and rules.block_rule == "pass-circle":
                    f["blocked_pass_circle"] += 1
            if kind == "pass":
                f["pass_" + rules.draw_rule] += 1
            if kind == "reshuffle" and rules.decks == 2:
                f["reshuffle_two_decks"] += 1
            if kind == "skip":
                j, drawn = i - 1, 0
                while ev[j][0] in ("penalty_draw", "reshuffle"):
                    drawn += ev[j][0] == "penalty_draw"
                    j -= 1
                if ev[j][0] == "play" and ev[j][2] % 13 == 0 and drawn < 2:
                    f["short_penalty_draw"] += 1
            if kind == "play" and e[3] >= 0 and rules.decks == 1:
                f["nine_played"] += 1
            if (
                kind == "skip"
                and ev[i - 1][0] == "play"
                and ev[i - 1][2] % 13 == 11
                and sum(1 for h in ev_deal_hands(ev, i) if h) == 2
            ):
                f["queen_two_players"] += 1
    return f


def ev_deal_hands(ev, i):
    """The hands of the last deal event at or before index ``i``."""
    for j in range(i, -1, -1):
        if ev[j][0] == "deal":
            return ev[j][3]
    return ()


def test_suite_reaches_rare_paths():
    """Every rare path of the rules appears somewhere in the compared matches (reference side)."""
    total: Counter = Counter()
    for spec, overrides, players, kind, seed, matches in _all_cases():
        _problems, refs = run_both(spec, overrides, players, kind, seed, matches)
        total += _features((spec, overrides, players), refs)
    print("\nreference-agreement coverage:", dict(sorted(total.items())))
    assert total["hands"] >= 5000
    for feature in (
        "declare",
        "draw",
        "reshuffle",
        "reshuffle_two_decks",
        "pass_one",
        "pass_until-playable",
        "pair",
        "skip",
        "penalty_draw",
        "short_penalty_draw",
        "queen_two_players",
        "blocked",
        "capped",
        "blocked_on_cap_turn",
        "power_card_on_cap_turn",
        "went_out",
        "out_with_nine",
        "out_with_pair",
        "tiebreak_hands",
        "tiebreak_repeated",
        "shared_win",
    ):
        assert total[feature] > 0, f"no compared match reached {feature!r}: {dict(total)}"
