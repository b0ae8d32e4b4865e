"""Positions: taken from live games and played forward with the same streams, built by hand, refused when impossible."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import parse_card
from nines_sim.game.rules import make_rules
from nines_sim.search.position import Position, PositionBatch, PositionError, play_out, positions_from_engine
from nines_sim.strategy.registry import make_lineup
from tests.interrupt import built_ins_as_python_seats
from tests.position_seats import PositionSeats

LINEUP = ["expert", "random", "dump-faces", "hold-nines"]


def _at(preset: str, seed: int, start: int, n: int, turns: int) -> tuple[list[CompiledEngine], PositionBatch, list]:
    """Matches ``start .. start + n - 1``, each on a traced compiled engine paused at turn ``turns`` of its first
    hand, and the positions there (no hand ends in the first turns of a fresh deal: hands hold 7+ cards)."""
    rules = make_rules(preset)
    lineup = make_lineup(LINEUP[: rules.players])
    engines = []
    for m in range(start, start + n):
        eng = CompiledEngine(rules, lineup, seed, m, 1, trace=True)
        eng.stop_at(0, turns)
        while eng.B and not eng.paused:
            eng.advance()
        assert eng.paused
        engines.append(eng)
    batch = PositionBatch.from_positions([positions_from_engine(e).position(0) for e in engines])
    return engines, batch, lineup


def _played_on(engines: list[CompiledEngine]) -> list:
    """Each paused engine's match played on to its end: its results."""
    out = []
    for eng in engines:
        while eng.B:
            eng.advance()
        out.append(eng.results())
    return out


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse"])
def test_a_position_from_a_run_continues_as_the_run_did(preset):
    engines, batch, lineup = _at(preset, seed=11, start=40, n=6, turns=5)
    # through the public Position form and back
    batch = PositionBatch.from_positions([batch.position(b) for b in range(batch.n)])
    pen, share = play_out(batch, lineup, to="match")
    first_hand_of_run = []
    for b, (m, res) in enumerate(zip(range(40, 46), _played_on(engines), strict=True)):
        hr = res.hand_records
        first = hr.penalty[(hr.match == m) & (hr.hand == 0)][0]
        first_hand_of_run.append(first)
        assert np.array_equal(pen[b], first), m
        assert np.array_equal(share[b], res.win_share[res.match == m][0]), m
    assert len(first_hand_of_run) == 6


def test_play_out_to_the_hand_end_gives_that_hands_penalties():
    engines, batch, lineup = _at("classic", seed=5, start=0, n=8, turns=3)
    pen, share = play_out(batch, lineup, to="hand")
    assert share is None
    for m, res in enumerate(_played_on(engines)):
        hr = res.hand_records
        assert np.array_equal(pen[m], hr.penalty[(hr.match == m) & (hr.hand == 0)][0])


def _cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def _hand_built(**changes):
    rules = make_rules("classic", players=2)
    a = _cards("KC 2D 3H")
    b = _cards("4S 5S")
    top = parse_card("7C")
    used = set(a) | set(b) | {top}
    stock = tuple(f for f in range(52) if f not in used)
    kw = dict(rules=rules, hands=(a, b), stock=stock, pile=(), top=top, active=0, seat=0, dealer=1)
    kw.update(changes)
    return Position(**kw)


def test_a_hand_built_position_where_seat_0_goes_out():
    # seat 0 holds only KC and plays it on 7C (T1): it goes out, seat 1 scores 4S + 5S = 9 (C2)
    p = _hand_built(hands=(_cards("KC"), _cards("4S 5S")), stock=tuple(f for f in range(52) if f not in
                    set(_cards("KC 4S 5S 7C"))))  # fmt: skip
    pen, _ = play_out([p], make_lineup(["expert", "expert"]))
    assert pen.tolist() == [[0, 9]]


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(hands=(_cards("KC 2D 3H"), _cards("4S KC"))), "appears 2 times"),
        (dict(stock=()), "holds 6 cards, not 52"),
        (dict(active=2), "active suit H differs"),
        (dict(seat=5), "seat to move 5"),
        (dict(in_hand=(True, False)), "seat 1 is not in this hand but holds 2 cards"),
    ],
)
def test_impossible_positions_are_refused_in_one_line(change, words):
    with pytest.raises(PositionError, match=words) as e:
        _hand_built(**change)
    assert "\n" not in str(e.value)


def test_a_nine_on_top_takes_any_declared_suit_but_not_five():
    p = _hand_built(top=parse_card("9C"), active=3, stock=tuple(f for f in range(52) if f not in
                    set(_cards("KC 2D 3H 4S 5S 9C")))).with_(active=3)  # fmt: skip
    assert p.active == 3
    with pytest.raises(PositionError, match="not a suit"):
        p.with_(active=5)


@pytest.mark.parametrize("preset", ["classic", "hard-nines", "double-nines+skip-reverse"])
@pytest.mark.parametrize("to", ["hand", "match"])
def test_positions_play_out_alike_on_the_loop_alone_and_with_the_classes_asked_in_python(preset, to, monkeypatch):
    _, batch, _ = _at(preset, seed=21, start=0, n=12, turns=4)
    eng = PositionSeats(batch, [])
    lineup = make_lineup(["expert", "dump-faces", "hold-nines", "suit-majority"][: eng.P])
    # force each game's lowest legal card, where the seat to move has one
    legal = np.array([int(eng.hands[0][b, eng.seat[b]]) & int(eng.legal_tab[eng.top[b] * 4 + eng.active[b]])
                      for b in range(eng.B)], dtype=object)  # fmt: skip
    force = np.array([(x & -x).bit_length() - 1 if x else -1 for x in legal], dtype=np.int64)
    b = play_out(batch, lineup, to=to, force=force)  # the compiled twins, on the loop alone
    built_ins_as_python_seats(monkeypatch)
    a = play_out(batch, lineup, to=to, force=force)  # the classes, asked through the compiled engine's broker
    assert np.array_equal(a[0], b[0])
    if to == "match":
        assert np.array_equal(a[1], b[1])


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse", "draw-until-playable"])
@pytest.mark.parametrize("to", ["hand", "match"])
def test_positions_with_python_seats_play_out_alike_with_twins_or_classes_beside_them(preset, to, monkeypatch):
    from tests.det_strategies import HighestPair, Lowest

    _, batch, _ = _at(preset, seed=5, start=0, n=12, turns=6)
    eng = PositionSeats(batch, [])
    lineup = [Lowest(), *make_lineup(["expert"]), HighestPair(), *make_lineup(["random"])][: eng.P]
    legal = np.array([int(eng.hands[0][b, eng.seat[b]]) & int(eng.legal_tab[eng.top[b] * 4 + eng.active[b]])
                      for b in range(eng.B)], dtype=object)  # fmt: skip
    force = np.array([(x & -x).bit_length() - 1 if x else -1 for x in legal], dtype=np.int64)
    b = [play_out(batch, lineup, to=to, force=f) for f in (None, force)]  # built-ins as compiled twins
    built_ins_as_python_seats(monkeypatch)
    for f, b_f in zip((None, force), b):
        a = play_out(batch, lineup, to=to, force=f)  # every seat asked in Python
        assert np.array_equal(a[0], b_f[0])
        if to == "match":
            assert np.array_equal(a[1], b_f[1])


@pytest.mark.parametrize("to", ["hand", "match"])
def test_positions_with_compiled_user_strategies_play_out_on_the_loop_as_their_batched_twins(to):
    # compiled user strategies and built-ins without a Python seat: the loop alone plays them (the numpy engine
    # used to), with the same results as the batched twin asked through the broker
    from nines_sim.lowest_first import LowestFirst, LowestFirstCompiled

    _, batch, _ = _at("classic", seed=3, start=0, n=10, turns=2)
    compiled = make_lineup([LowestFirstCompiled(), "expert", LowestFirstCompiled(), "random"])
    batched = make_lineup([LowestFirst(), "expert", LowestFirst(), "random"])
    a, b = play_out(batch, compiled, to=to), play_out(batch, batched, to=to)
    assert np.array_equal(a[0], b[0]) and a[0].sum() > 0
    if to == "match":
        assert np.array_equal(a[1], b[1])


def test_positions_taken_by_rows_play_on_the_loop_compiled_for_c_order():
    """With two decks a batch taken by rows held its hands and its pile in orders other than C's (taken by fancy
    indexing), and the loop, compiled for C-ordered arrays, was compiled again for them: a whole form, in every
    process that took a batch (issue 42).  A batch taken by rows is C-ordered now; one whose arrays are in another
    order still plays on the C form.  The signatures the loop's forms were asked for in this process say which
    orders they met."""
    from numba.core import types

    from nines_sim.engine import turn_loop as K

    _, batch, lineup = _at("double-nines", seed=11, start=40, n=3, turns=5)
    rows = np.array([2, 0, 2])
    taken = batch.take(rows)
    assert all(x.flags.c_contiguous for x in taken.state)
    decked = {"hands": np.asfortranarray(taken.state.hands), "under": np.asfortranarray(taken.state.under)}
    taken = PositionBatch(batch.rules, state=taken.state._replace(**decked))
    assert not taken.state.hands.flags.c_contiguous  # what the test is about
    whole = play_out(batch, lineup, to="hand")[0]
    assert np.array_equal(play_out(taken, lineup, to="hand", consume=True)[0], whole[rows])
    forms = (K.play_slots, K.play_slots_expert, K.play_slots_classic, K.play_slots_classic_expert, K.play_slots_trace)
    asked = {a.layout for form in forms for sig in form.signatures for a in sig if isinstance(a, types.Array)}
    assert asked == {"C"}


def test_a_play_out_keeps_each_slot_s_first_hand_record_and_the_score_of_an_earlier_run():
    """A slot's hands are recorded in order (after a tied hand, S4, a tie-break hand follows): the first is the hand a
    play-out scores, and a slot scored by an earlier run of the loop keeps that score.  The records a run leaves are
    kept in one compiled pass in record order (once by np.unique's sort): the first of a slot's records wins, not the
    last."""
    from nines_sim.engine.loop_constants import H_MATCH, M_MATCH, NH, NM
    from nines_sim.engine.slot_records import keep_records

    hrec = np.zeros((5, NH), dtype=np.int64)
    hrec[:, H_MATCH] = [2, 0, 2, 1, 0]
    hpen = np.arange(10, dtype=np.int64).reshape(5, 2)
    penalties = np.array([[0, 0], [-1, -1], [0, 0]], dtype=np.int64)
    scored = np.array([False, True, False])
    mrec = np.zeros((2, NM), dtype=np.int64)
    mrec[:, M_MATCH] = [2, 0]
    mshare = np.array([[0.5, 0.5], [1.0, 0.0]])
    finished, share = np.zeros(3, dtype=bool), np.zeros((3, 2))
    keep_records(hrec, hpen, 5, penalties, scored, mrec, mshare, 2, finished, share)
    assert penalties.tolist() == [[2, 3], [-1, -1], [0, 1]]
    assert scored.all()
    assert finished.tolist() == [True, False, True]
    assert share.tolist() == [[1.0, 0.0], [0.0, 0.0], [0.5, 0.5]]
    keep_records(hrec, hpen, 0, penalties, scored, mrec, mshare, 0, finished, np.zeros((0, 0)))  # nothing new
    assert penalties.tolist() == [[2, 3], [-1, -1], [0, 1]]
