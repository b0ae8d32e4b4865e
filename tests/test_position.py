"""Positions: taken from live games and played forward with the same streams, built by hand, refused when impossible."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.numpy_engine import BatchEngine
from nines_sim.game.cards import parse_card
from nines_sim.game.rules import make_rules
from nines_sim.search.position import Position, PositionBatch, PositionError, play_out, positions_from_engine
from nines_sim.strategy.registry import make_lineup

LINEUP = ["expert", "random", "dump-faces", "hold-nines"]


def _engine_at(preset: str, seed: int, start: int, n: int, turns: int) -> BatchEngine:
    rules = make_rules(preset)
    eng = BatchEngine(rules, make_lineup(LINEUP[: rules.players]), seed, start, n, batch_size=n)
    eng.start_run()
    for _ in range(turns):
        eng.step()  # no hand ends in the first turns of a fresh deal (hands hold 7+ cards)
    return eng


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse"])
def test_a_position_from_a_run_continues_as_the_run_did(preset):
    eng = _engine_at(preset, seed=11, start=40, n=6, turns=5)
    batch = positions_from_engine(eng)
    # through the public Position form and back
    batch = PositionBatch.from_positions([batch.position(b) for b in range(batch.n)])
    pen, share = play_out(batch, eng.lineup, to="match")
    first_hand_of_run = []
    while eng.B:
        eng.advance()
    res = eng.results()
    for b, m in enumerate(range(40, 46)):
        hr = res.hand_records
        first = hr.penalty[(hr.match == m) & (hr.hand == 0)][0]
        first_hand_of_run.append(first)
        assert np.array_equal(pen[b], first), m
        assert np.array_equal(share[b], res.win_share[res.match == m][0]), m
    assert len(first_hand_of_run) == 6


def test_play_out_to_the_hand_end_gives_that_hands_penalties():
    eng = _engine_at("classic", seed=5, start=0, n=8, turns=3)
    pen, share = play_out(positions_from_engine(eng), eng.lineup, to="hand")
    assert share is None
    while eng.B:
        eng.advance()
    hr = eng.results().hand_records
    for m in range(8):
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
def test_the_compiled_and_numpy_engines_play_positions_alike(preset, to):
    eng = _engine_at(preset, seed=21, start=0, n=12, turns=4)
    lineup = make_lineup(["expert", "dump-faces", "hold-nines", "suit-majority"][: eng.P])
    batch = positions_from_engine(eng)
    # force each game's lowest legal card, where the seat to move has one
    legal = np.array([int(eng.hands[0][b, eng.seat[b]]) & int(eng.legal_tab[eng.top[b] * 4 + eng.active[b]])
                      for b in range(eng.B)], dtype=object)  # fmt: skip
    force = np.array([(x & -x).bit_length() - 1 if x else -1 for x in legal], dtype=np.int64)
    a = play_out(batch, lineup, to=to, force=force, engine="numpy")
    b = play_out(batch, lineup, to=to, force=force, engine="compiled")
    assert np.array_equal(a[0], b[0])
    if to == "match":
        assert np.array_equal(a[1], b[1])


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse", "draw-until-playable"])
@pytest.mark.parametrize("to", ["hand", "match"])
def test_positions_with_python_seats_play_out_on_the_compiled_engine_as_on_the_numpy_one(preset, to):
    from tests.det_strategies import HighestPair, Lowest

    eng = _engine_at(preset, seed=5, start=0, n=12, turns=6)
    lineup = [Lowest(), *make_lineup(["expert"]), HighestPair(), *make_lineup(["random"])][: eng.P]
    batch = positions_from_engine(eng)
    legal = np.array([int(eng.hands[0][b, eng.seat[b]]) & int(eng.legal_tab[eng.top[b] * 4 + eng.active[b]])
                      for b in range(eng.B)], dtype=object)  # fmt: skip
    force = np.array([(x & -x).bit_length() - 1 if x else -1 for x in legal], dtype=np.int64)
    for f in (None, force):
        a = play_out(batch, lineup, to=to, force=f, engine="numpy")
        b = play_out(batch, lineup, to=to, force=f, engine="compiled")
        assert np.array_equal(a[0], b[0])
        if to == "match":
            assert np.array_equal(a[1], b[1])
