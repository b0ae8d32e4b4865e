"""The compiled luck walk (nines_sim.luck.compiled) gives the Python walk's numbers, match by match."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.seats import seat_ids
from nines_sim.game.rules import make_rules
from nines_sim.luck import compiled
from nines_sim.luck.compiled import TracingEngine, walk_rows
from nines_sim.luck.features import NJ0
from nines_sim.luck.walk import LuckError, Walker
from nines_sim.strategy.registry import make_lineup


@pytest.mark.parametrize(
    ("preset", "specs"),
    [
        ("classic", ["expert", "dump-faces"]),
        ("double-nines", ["random", "random", "dump-faces", "hold-nines", "suit-majority"]),  # V4's pair
        ("no-nine-out+no-stacking", ["random", "suit-majority", "dump-faces", "hold-nines", "expert", "random"]),
        ("draw-until-playable", ["random", "expert"]),  # V2
        ("skip-reverse", ["random", "hold-nines", "suit-majority"]),  # V3's penalty draws
        ("fixed-hands-5", ["hold-nines", "random", "dump-faces"]),  # S3's fixed hands
        ("classic", ["tests/replay_plugins.py:Chatty", "random", "dump-faces"]),  # a Python seat: many slots
        ("hard-nines", ["expert", "expert", "expert"]),  # expert's tie-breaks alone
    ],
)
def test_compiled_walk_equals_the_python_walk(preset, specs, monkeypatch):
    """Seeded matches walked from the raw event rows in compiled code, as a small buffer drains them (each slot's
    walk going on mid-match), and from the decoded tuples in Python give the same parts, hand blocks (to 1e-12),
    shares, totals and hand penalties (exactly)."""
    rules = make_rules(preset).replace(players=len(specs))
    lineup = make_lineup(specs)
    start, n = 7, 40
    monkeypatch.setattr(compiled, "ONE_SLOT_ROWS", 1024)  # a drain every few hands
    parts, shares, totals, blocks, penalties, *_ = compiled.trace_luck(rules, lineup, specs, 3, start, n)
    traced = CompiledEngine(rules, lineup, 3, start, n, batch_size=16, trace=True, specs=specs)
    traced.trace_choices = True  # expert's choice sets, which its tie-breaks' corrections need
    traced.run()
    walker = Walker(rules, seat_ids(lineup))
    walked = [walker.walk(traced.trace[m]) for m in range(start, start + n)]
    np.testing.assert_allclose(parts, np.stack([w.parts for w in walked]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(blocks, np.concatenate([w.hand_blocks for w in walked]), rtol=0, atol=1e-12)
    assert np.array_equal(shares, np.stack([w.shares for w in walked]))
    assert np.array_equal(totals, np.stack([w.totals for w in walked]))
    assert np.array_equal(penalties, np.concatenate([w.hand_penalties for w in walked]))
    assert np.abs(parts[:, 2]).sum() > 0  # the heuristics' random choices (expert's tie-breaks) were corrected


def test_compiled_walk_refuses_a_move_outside_the_policy():
    """A play the seat's policy would never make (``dump-faces`` playing a cheaper card) stops the walk with a
    LuckError naming the match, as the Python walk does, never a number."""
    rules = make_rules("classic").replace(players=2)
    lineup = make_lineup(["random", "random"])
    raw = TracingEngine(rules, lineup, 0, 0, 30, specs=["random", "random"])
    raw.run()
    with pytest.raises(LuckError, match="not one of its policy's choices"):  # walked as if both were dump-faces
        walk_rows(rules, seat_ids(make_lineup(["dump-faces", "dump-faces"])), raw.rows(), 0, 30)


def test_a_walk_into_reused_arrays_gives_a_fresh_walks_numbers():
    """A chunk walked into this thread's reused arrays (a run's chunks, one after another in a worker) gives the
    numbers of a walk into fresh ones, whatever the matches walked into them before (none of their state stays)."""
    rules = make_rules("skip-reverse").replace(players=3)
    specs = ["random", "expert", "dump-faces"]
    lineup = make_lineup(specs)
    fresh = compiled.trace_luck(rules, lineup, specs, 2, 40, 30, keep_hands=False)
    compiled.trace_luck(rules, lineup, specs, 2, 0, 30, keep_hands=False, reuse=True)  # other matches first
    reused = compiled.trace_luck(rules, lineup, specs, 2, 40, 30, keep_hands=False, reuse=True)
    for a, b in zip(fresh[:3], reused[:3], strict=True):
        assert a.tobytes() == b.tobytes()
    assert np.abs(fresh[0]).sum() > 0


_SIGNATURES_ASKED = """
import json

from nines_sim.game.rules import make_rules
from nines_sim.luck import compiled, kernel, play_choices, steps, value_kernel
from nines_sim.strategy.registry import make_lineup
from tests.signatures import signatures_asked

specs = ["random", "dump-faces", "suit-majority"]
compiled.trace_luck(make_rules("classic", players=3), make_lineup(specs), specs, 1, 0, 2)  # compiles the walk
# numba's pipeline up to its type inference, its inlining of the steps included (machine code loaded from the cache
# asks its callees nothing)
mods = [kernel, value_kernel, steps, play_choices]
print(json.dumps(signatures_asked([(steps.walk, sig) for sig in steps.walk.signatures], mods)))
"""
#: The walk's steps: inlined by numba (``inline="always"``), never compiled as functions of their own.
STEPS = ("deal", "draw", "declare", "end_hand", "end_match", "heuristic_moves", "expert_moves", "play_choice")


def test_the_walk_s_helpers_are_compiled_once_each():
    """Each helper of the compiled walk is compiled for one signature (issue 42): a count that began as the literal
    0 and the stock's one row passed as the literal 1 (its seat as 0) made numba compile helpers once more for each
    constant, and each array assignment compiled its error message's formatting.  Its steps are compiled for none:
    numba inlines them (compiled on their own and inlined by LLVM, each step's machine code was made only to be
    copied into the walk: 8 s of a first ``--luck`` run).  The walk is typed again (numba's type inference, which
    asks each callee for the signature of each call) and the signatures each helper was asked for are counted, not
    timed: in a process of its own, since tests that call a helper directly (with other argument types) ask it for
    more."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", _SIGNATURES_ASKED], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent.parent)  # fmt: skip
    assert done.returncode == 0, done.stderr
    asked = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"count", "blocks", "move_card", "mean_into", "apply_play"} <= set(asked), asked
    assert not set(STEPS) & set(asked), asked
    assert all(len(sigs) == 1 for sigs in asked.values()), {f: s for f, s in asked.items() if len(s) > 1}
    # compile_helpers compiles each for the signature the walk asks, so that the walk finds them in the cache
    from nines_sim.luck import kernel, value_kernel

    ahead = {fn.py_func.__name__: [str(tuple(sig))] for fn, sig in kernel.HELPERS + value_kernel.HELPERS}
    assert {f: s for f, s in asked.items() if f in ahead} == ahead
    assert set(asked) - set(ahead) == {"phase", "phased"}  # card_blocks's callees: compiled with it


def test_the_walk_counts_no_references():
    """Every function of the compiled walk is compiled without numba's reference counting and with numpy's error
    model (issue 41's cost): with it, each view the walk took of an array (a seat's row, a kind's block) cost two
    calls that count it atomically, most of the calls in the walk's machine code.  The walk makes no array (its
    scratch comes from :func:`~nines_sim.luck.steps.walk_scratch`), so it needs none."""
    from numba.core.registry import CPUDispatcher

    from nines_sim.luck import kernel, play_choices, steps, value_kernel

    found = [f for mod in (kernel, value_kernel, play_choices, steps) for f in vars(mod).values()
             if isinstance(f, CPUDispatcher) and f.py_func.__module__ == mod.__name__]  # fmt: skip
    assert steps.walk in found and kernel.hand_corrections in found and len(found) >= 25
    for f in found:
        assert f.targetoptions.get("_nrt") is False, f.py_func.__name__
        assert f.targetoptions.get("error_model") == "numpy", f.py_func.__name__


def test_a_play_s_choices_add_only_the_columns_a_play_changes_with_the_whole_blocks_bits():
    """The choices' step clears, phases and adds only the columns a play changes (``choice_columns``): each seat's
    naturals of the active suit and of the top's rank, the legal counts and the ranks played; on them, the numbers
    of phasing every column and adding chosen minus mean (``phased``, then ``mean_into`` with scale 1), to the bit;
    every other column of the choice part is left as it was (the whole blocks' way adds 0.0 there)."""
    from nines_sim.luck.features import COL_ACTIVE, COL_TOP, NB, NJ, NJ0, NQ
    from nines_sim.luck.kernel import mean_into, phased
    from nines_sim.luck.play_choices import choice_columns

    rng = np.random.default_rng(42)
    P, ranks = 4, (1 << 3) | (1 << 11)
    cols = [COL_ACTIVE, COL_TOP, 3, 11]
    cols += [NB + c for c in cols] + [2 * NB, 2 * NB + 1]
    mean, chosen = rng.normal(size=(P, NJ)), rng.normal(size=(P, NJ))
    choice_columns(mean, chosen, np.zeros((P, NJ)), np.zeros((P, NB + NQ + 1)), P, ranks, np.int64(0))
    assert not mean[:, cols].any() and not chosen[:, cols].any() and mean[:, 0].all()
    mean, chosen = np.zeros((P, NJ)), np.zeros((P, NJ))
    mean[:, cols], chosen[:, cols] = rng.normal(size=(P, len(cols))), rng.normal(size=(P, len(cols)))
    blk = np.zeros((P, NB + NQ + 1))
    blk[:, NB : NB + NQ] = rng.uniform(0.1, 1, size=(P, NQ))
    blk[:, NB] = 1.0
    start = rng.normal(size=(P, NJ))
    got = start.copy()
    choice_columns(mean, chosen, got, blk, P, ranks, np.int64(1))
    want = start.copy()
    phased(mean, blk[:, NB:], P)
    phased(chosen, blk[:, NB:], P)
    mean_into(want, chosen, mean, 1.0, P)
    assert np.array_equal(got, want)
    assert np.array_equal(got[:, 0], start[:, 0]) and np.array_equal(
        got[:, NJ0 + 2 * NB + 2], start[:, NJ0 + 2 * NB + 2]
    )


def test_the_phase_of_the_hands_sizes_reads_its_quotients_with_phase_s_bits():
    """``sizes_phase`` sums each seat's rank counts as a tree and reads ``1 / (1 + size)`` from ``RECIPROCAL``
    (a draw's and a choice's every time): the hand sizes being whole numbers, the bits of summing them one rank
    after the other and dividing (``phase``), for random hands of 2 to 6 seats, each seat's size moved by -1, 0, 1."""
    from nines_sim.luck.features import NQ
    from nines_sim.luck.kernel import RECIPROCAL, phase, sizes_phase

    assert all(RECIPROCAL[n] == 1.0 / (1.0 + n) for n in range(len(RECIPROCAL)))
    rng = np.random.default_rng(7)
    for _ in range(200):
        P = int(rng.integers(2, 7))
        hr = rng.integers(0, 8, size=(P, 13)).astype(np.float64)  # at most 92 cards: two decks hold 104
        seat, dz = int(rng.integers(P)), float(rng.integers(-1, 2))
        hr[seat, 0] += 1.0  # room for a card out
        got, want = np.zeros((P, NQ + 1)), np.zeros((P, NQ + 1))
        sizes_phase(hr, P, seat, dz, got)
        for p in range(P):
            z = 0.0
            for r in range(13):
                z += hr[p, r]
            want[p, NQ] = z + (dz if p == seat else 0.0)
        phase(want, P)
        assert np.array_equal(got, want)


def test_a_hand_s_corrections_add_each_dot_product_in_column_order():
    """A fitted value's corrections at a hand's end (``kernel.hand_corrections``) are, to the bit, each kind and
    seat's sum of its card columns' products added one column after the other (the order ``luck.csv``'s digits
    come from), though the walk adds a seat's three kinds side by side."""
    from nines_sim.luck.features import NC, NJ
    from nines_sim.luck.kernel import hand_corrections

    rng = np.random.default_rng(41)
    P = 5
    acc, W = rng.normal(size=(3, P, NJ)), rng.normal(size=(P, NC))
    vm, vh = rng.normal(size=(3, P, NC)), rng.normal(size=(3, P, NJ))
    vw = (vm[:, :, :, None] * vh[:, :, None, :]).reshape(3, P, NC * NJ)
    out = np.full((3, P), 0.25)
    hand_corrections(acc, W, vw, vm, vh, np.ones((3, P), dtype=np.int64), P, np.zeros(NJ), np.zeros((3, P)), out)
    for k in range(3):
        for p in range(P):
            d, m = 0.0, 0.0
            for j in range(NJ):
                d += float(vh[k, p, j] * acc[k, p, j])
            for c in range(NC):
                m += float(W[p, c] * vm[k, p, c])
            assert out[k, p] == 0.25 + m * d


@pytest.mark.parametrize(
    ("preset", "specs"),
    [
        ("classic", ["expert", "dump-faces"]),
        ("skip-reverse", ["random", "hold-nines", "suit-majority"]),  # V3's penalty draws
        ("double-nines", ["random", "random", "dump-faces", "hold-nines", "suit-majority"]),  # two decks, V4's pair
    ],
)
def test_corrections_walked_hand_by_hand_are_the_value_s_corrections_of_the_parts(preset, specs, monkeypatch):
    """A value's run walks each hand's corrections as the hand ends (no parts kept): a fitted value through its two
    stages' factors (109 products a hand), a noise value through its whole weights (990), both equal to the value's
    corrections of the walked parts (:meth:`LinearValue.corrections`) to 1e-12, over drains mid-match."""
    from nines_sim.luck.value import LinearValue, fit_value, noise_value

    rules = make_rules(preset).replace(players=len(specs))
    lineup = make_lineup(specs)
    monkeypatch.setattr(compiled, "ONE_SLOT_ROWS", 1024)
    fit_parts, fit_shares, _, fit_blocks, fit_penalties, *_ = compiled.trace_luck(rules, lineup, specs, 5, 1000, 120)
    fitted = fit_value(fit_parts, fit_shares, fit_blocks, fit_penalties)
    vw, vm, vh, rank1 = compiled.value_factors(fitted)
    assert rank1.all()  # every kind and seat factored, each to the bit
    assert np.array_equal(vm[:, :, :, None] * vh[:, :, None, :], vw.reshape(vm.shape + vh.shape[-1:]))
    parts, shares, *_ = compiled.trace_luck(rules, lineup, specs, 4, 0, 60)
    for value in (fitted, noise_value(len(specs), 2), LinearValue(fitted.weights, "no stages")):
        walked, walked_shares, *_ = compiled.trace_luck(rules, lineup, specs, 4, 0, 60, keep_hands=False, value=value)
        expected = value.corrections(parts)
        np.testing.assert_allclose(walked, expected, rtol=0, atol=1e-12)
        assert np.abs(expected).max() > 0.01 and np.array_equal(walked_shares, shares)
    assert not compiled.value_factors(noise_value(len(specs), 2))[3].any()  # no stages: the whole weights


def test_V4_a_choice_set_with_the_pair_gives_the_python_walk_s_choice_part_in_every_phase_copy():
    """V4's pair leaves the hand two cards shorter, a card one: the choices' phases differ, so the compiled walk
    builds each choice's whole card blocks there (every other play shares one phase).  Seeded double-nines matches
    of two random seats, pairs among their choices, give the Python walk's choice part, phase copies included, to
    1e-12."""
    rules = make_rules("double-nines").replace(players=2)
    specs = ["random", "random"]
    lineup = make_lineup(specs)
    parts, *_ = compiled.trace_luck(rules, lineup, specs, 11, 0, 30)
    traced = CompiledEngine(rules, lineup, 11, 0, 30, batch_size=16, trace=True, specs=specs)
    traced.run()
    walker = Walker(rules, seat_ids(lineup))
    walked = np.stack([walker.walk(traced.trace[m]).parts for m in range(30)])
    assert sum(e[0] == "pair" for m in range(30) for e in traced.trace[m]) > 0  # the pair chosen, so offered
    np.testing.assert_allclose(parts[:, 2], walked[:, 2], rtol=0, atol=1e-12)
    assert np.abs(parts[:, 2, :, NJ0:]).max() > 0.01  # the phase copies corrected


def test_expert_s_choice_rows_are_read_by_the_luck_walk_alone():
    """The trace form logs ``expert``'s choice sets in rows of their own, before its move: decoded only when asked
    (a replay's events are those of before), each naming the expert's seat, a play's tied naturals among its
    hand's faces, and followed by that seat's move before the next turn."""
    from nines_sim.engine.events import decode
    from nines_sim.game.cards import FACE_RANK, NINE_RANK

    rules = make_rules("classic").replace(players=2)
    specs = ["dump-faces", "expert"]
    raw = TracingEngine(rules, make_lineup(specs), 4, 0, 5, specs=specs)
    raw.run()
    plain = [e for _, e in decode(raw.rows(), 2, 1)]
    events = [e for _, e in decode(raw.rows(), 2, 1, choices=True)]
    assert [e for e in events if e[0] != "choice"] == plain
    choices = [i for i, e in enumerate(events) if e[0] == "choice"]
    assert len(choices) > 20 and all(events[i][1] == 1 for i in choices)
    for i in choices:
        seat, play, tied, nines, _ = events[i][1:]
        nxt = next(e for e in events[i + 1 :] if e[0] != "choice")
        assert nxt[0] in ("play", "declare") and nxt[1] == seat
        if play:
            assert all(FACE_RANK[f] != NINE_RANK for f in range(52) if (tied >> f) & 1)
            assert all(FACE_RANK[f] == NINE_RANK for f in range(52) if (nines >> f) & 1)
            assert tied or nines


def test_compiled_walk_refuses_an_expert_move_outside_or_without_its_logged_sets():
    """``expert``'s move with no choice row before it, or outside the set its row gives, stops the compiled walk
    with a LuckError naming the match (a bug, never a number)."""
    from nines_sim.engine.loop_constants import EV_CHOICE

    rules = make_rules("classic").replace(players=2)
    specs = ["expert", "dump-faces"]
    raw = TracingEngine(rules, make_lineup(specs), 0, 0, 5, specs=specs)
    raw.run()
    rows, ids = raw.rows(), seat_ids(make_lineup(specs))
    walk_rows(rules, ids, rows, 0, 5)  # as played: walked
    with pytest.raises(LuckError, match=r"seat 0 \(expert\) moved with no play choice logged before it \(match 0\)"):
        walk_rows(rules, ids, rows[rows[:, 0] != EV_CHOICE], 0, 5)
    moved = rows.copy()
    first = np.flatnonzero((rows[:, 0] == EV_CHOICE) & (rows[:, 2] == 1))[0]
    moved[first, 3] = 0  # no tied natural: the 9s only, which the play that follows is not
    moved[first, 4] = 0
    with pytest.raises(LuckError, match="not one of its policy's choices"):
        walk_rows(rules, ids, moved, 0, 5)


@pytest.mark.parametrize(
    ("preset", "specs"),
    [
        ("classic", ["expert", "dump-faces"]),
        ("double-nines", ["random", "random", "dump-faces", "hold-nines", "suit-majority"]),  # two decks, V4's pair
        ("skip-reverse", ["random", "hold-nines", "suit-majority"]),  # V3's penalty draws
        ("hard-nines", ["expert", "expert", "expert"]),  # Hard Nines: expert's tie-breaks alone
        ("draw-until-playable", ["random", "expert"]),  # V2's draws until a legal card
        ("no-nine-out+no-stacking", ["random", "suit-majority", "dump-faces", "hold-nines", "expert", "random"]),
        ("classic", ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]),  # the default 5 seats
    ],
)
def test_a_fixed_value_walked_in_numbers_gives_the_column_walk_s_corrections(preset, specs, monkeypatch):
    """A run's value is fixed before its matches are played, so its walk keeps no card block columns: each event's
    change of the value as a number (a draw's from the stock's sums of each card's weights, kept as cards leave it;
    a choice's over only the columns a play changes; each hand's per kind times the match weights' coefficients at
    its end).  Its corrections, per match, kind and seat, are the column walk's (the fit's, the reference) to 1e-12
    of the largest, over seeded matches under several rule sets and table sizes, drains mid-match included; the
    shares and totals are the same."""
    from nines_sim.luck.value import fit_value

    rules = make_rules(preset).replace(players=len(specs))
    lineup = make_lineup(specs)
    monkeypatch.setattr(compiled, "ONE_SLOT_ROWS", 1024)  # a drain every few hands: the sums kept between rows
    fit_parts, fit_shares, _, fit_blocks, fit_penalties, *_ = compiled.trace_luck(rules, lineup, specs, 5, 1000, 120)
    value = fit_value(fit_parts, fit_shares, fit_blocks, fit_penalties)
    run = compiled.walking_engine(rules, lineup, specs, 4, 0, 1, keep_hands=False, value=compiled.value_factors(value),
                                  keep_parts=False)  # a --luck run's chunk (games.play_range's engine)  # fmt: skip
    assert run.walker is not None and run.walker.scalar
    assert not compiled.RowWalker(rules, seat_ids(lineup), 0, 1, value=value).scalar  # a fit's: hands kept
    columns = compiled.trace_luck(rules, lineup, specs, 4, 0, 60, keep_hands=False, value=value, columns=True)
    numbers = compiled.trace_luck(rules, lineup, specs, 4, 0, 60, keep_hands=False, value=value)
    largest = np.abs(columns[0]).max()
    np.testing.assert_allclose(numbers[0], columns[0], rtol=0, atol=1e-12 * largest)
    assert np.array_equal(numbers[1], columns[1]) and np.array_equal(numbers[2], columns[2])
    assert (np.abs(columns[0]).max(axis=(0, 2)) > 1e-3).all()  # deal, draws and choices each corrected


def test_a_luck_range_stops_when_asked_after_a_block_of_matches(monkeypatch):
    """A ``--luck`` unit (:func:`~nines_sim.experiments.tournament.games.play_range` with a value) asks whether to
    stop after each block of matches, as a plain one does: the trace form fills its event rows sooner than a block
    (every 143 matches or so at 5 seats, against 8,192; here a few against 20), and the engine's advance went on
    through the whole range before the unit looked (a Dask unit of 200,000 matches ran to its end after Ctrl-C).
    Stopped after its first block, it keeps a block of matches from its start and no luck; not stopped, its blocks
    give the luck of one pass, bit for bit."""
    import nines_sim.engine.batch as batch
    from nines_sim.experiments.tournament.games import play_range
    from nines_sim.luck.value import noise_value

    rules = make_rules("classic").replace(players=2)
    specs = ("expert", "dump-faces")
    value = compiled.value_factors(noise_value(2, 2))
    whole = compiled.trace_luck(rules, make_lineup(list(specs)), specs, 3, 0, 300, keep_hands=False, value=value)
    monkeypatch.setattr(batch, "MATCHES_PER_ADVANCE", 20)
    monkeypatch.setattr(compiled, "ONE_SLOT_ROWS", 4096)  # a heads-up match writes about 800 rows
    asked = []

    def after_one_block() -> bool:
        asked.append(True)
        return len(asked) > 1  # not before the start; at the first look after it

    tally, _, luck = play_range(rules, specs, 3, 0, 300, 16, False, should_stop=after_one_block, luck=value)
    assert 0 < tally.matches < 40 and luck is None
    tally, _, luck = play_range(rules, specs, 3, 0, 300, 16, False, luck=value)
    assert tally.matches == 300 and luck is not None
    assert luck.corrections.tobytes() == whole[0].tobytes() and luck.shares.tobytes() == whole[1].tobytes()
