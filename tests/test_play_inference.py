"""Inference from plays: worlds where the opponent's observed play is not the model's weigh (almost) nothing."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import parse_card
from nines_sim.game.rules import make_rules
from nines_sim.game.tables import legal_table
from nines_sim.runs.simulate import simulate
from nines_sim.search.play_inference import PlayMemory, play_weights, resample
from nines_sim.search.position import Position, PositionBatch
from nines_sim.strategies.expert import Expert
from nines_sim.strategy.base import DecisionKind, Observation, PublicState
from nines_sim.strategy.registry import make_lineup

R2 = make_rules("classic", players=2)
MINE = "2D 3D 4S 5S 6C"


def _cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def _position(mine: str, theirs: str, top: str, pile: str, active: int | None = None) -> Position:
    a, b, t, p = _cards(mine), _cards(theirs), parse_card(top), _cards(pile)
    stock = [f for f in range(52) if f not in {*a, *b, t, *p}]
    played = sum(1 << f for f in (*p, t))
    return Position(R2, (a, b), tuple(stock), p, t, int(t // 13) if active is None else active, seat=0, dealer=1,
                    turn=4, played=played, dkey=12345)  # fmt: skip


def _observation(pos: Position) -> Observation:
    """Seat 0's play decision in one position."""
    a = PositionBatch.from_positions([pos]).arrays
    tab = legal_table(R2)
    pub = PublicState(R2, tab, a["under"], **{k: a[k] for k in PublicState.ARRAYS})
    hand = [w[:, 0].copy() for w in a["hands"]]
    legal = hand[0] & tab[a["top"] * 4 + a["active"]]
    return Observation(pub, np.arange(1), np.zeros(1, dtype=np.int64), DecisionKind.PLAY, hand, legal)


def _worlds(pos: Position, their_hands: list[str]) -> PositionBatch:
    """Copies of ``pos`` with the opponent's hand replaced (the stock refilled from the rest)."""
    out = []
    for theirs in their_hands:
        b = _cards(theirs)
        mine = pos.hands[0]
        stock = [f for f in range(52) if f not in {*mine, *b, pos.top, *pos.pile}]
        out.append(Position(R2, (mine, b), tuple(stock), pos.pile, pos.top, pos.active, seat=0, dealer=1,
                            turn=pos.turn, played=pos.played, dkey=pos.dkey))  # fmt: skip
    return PositionBatch.from_positions(out)


def _after_their_play():
    """I play 7H from ``MINE + 7H``; the opponent answers 2H (one card fewer, nobody drew)."""
    memory = PlayMemory()
    before = _position(MINE + " 7H", "2H 8C 10C JD QD", "7C", "3H")
    obs1 = _observation(before)
    memory.observe(obs1)
    memory.after_play(obs1, np.array([parse_card("7H")]))
    now = _position(MINE, "8C 10C JD QD", "2H", "3H 7C 7H")
    obs2 = _observation(now)
    memory.observe(obs2)
    return memory, obs2, now


def test_a_world_where_the_model_would_not_have_played_the_observed_card_weighs_almost_nothing():
    memory, obs, now = _after_their_play()
    plays = memory.plays(obs)
    assert len(plays[0]) == 1 and plays[0][0].card == parse_card("2H")
    # world 0: the opponent also held KH then: expert sheds the dearest heart (KH), never 2H;
    # world 1: 2H was its only heart: expert had to play it; world 2: it held 9S too but kept it (a natural was legal)
    worlds = _worlds(now, ["KH 10C JD QD", "8C 10C JD QD", "9S 10C JD QD"])
    w = play_weights(obs, worlds, plays, Expert(), infer=1.0)
    assert w[0] == 1e-3
    assert w[1] == 1.0 and w[2] == 1.0
    # the strength of the inference is a setting: infer=0.5 halves the weight of the disagreeing world
    assert play_weights(obs, worlds, plays, Expert(), infer=0.5)[0] == 0.5


def test_a_nine_declaring_a_suit_the_model_would_not_declare_weighs_almost_nothing():
    memory = PlayMemory()
    before = _position(MINE + " 7H", "9H 8C 10C JD QD", "7C", "3H")
    obs1 = _observation(before)
    memory.after_play(obs1, np.array([parse_card("7H")]))
    # the opponent plays 9H and declares clubs (suit 0)
    now = _position(MINE, "8C 10C JD QD", "9H", "3H 7C 7H", active=0)
    obs2 = _observation(now)
    memory.observe(obs2)
    plays = memory.plays(obs2)
    assert plays[0][0].suit == 0
    # with no heart and no 7, expert plays the 9; it declares the suit it holds most of: clubs in world 0
    # (three clubs), diamonds in world 1 (three diamonds against one club)
    worlds = _worlds(now, ["8C 10C JC QD", "8C JD QD KD"])
    w = play_weights(obs2, worlds, plays, Expert(), infer=1.0)
    assert w[0] == 1.0 and w[1] == 1e-3


def test_a_draw_between_two_decisions_forgets_the_plays_whose_hands_it_blurs():
    memory, obs, now = _after_their_play()
    memory.after_play(obs, np.array([parse_card("2D")]))
    # the opponent drew 5H and kept it (one card more, the stock one fewer)
    later = _position(MINE.replace("2D ", ""), "8C 10C JD QD 5H", "2D", "3H 7C 7H 2H")
    assert len(later.stock) == len(now.stock) - 1
    obs3 = _observation(later)
    memory.observe(obs3)
    assert memory.plays(obs3) == [[]]


def test_resampling_keeps_only_worlds_with_weight_and_leaves_unweighted_games_alone():
    memory, obs, now = _after_their_play()
    w = np.array([1e-3, 1.0, 1e-3, 1.0, 1e-3, 1.0, 1e-3, 1.0])
    rows = resample(obs, w, 4, salt=20)
    assert (w[rows] == 1.0).all()
    assert np.array_equal(resample(obs, np.ones(8), 4, salt=20), np.arange(4))


def test_lookahead_with_play_inference_is_the_same_for_every_worker_count():
    la = make_lineup(["lookahead:samples=8,infer_plays=1"])[0]
    assert la.infer_plays == 1.0
    one = simulate(R2, [la, "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(R2, [la, "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)
    # the plays were used: the memory holds some
    assert la._memory is not None
