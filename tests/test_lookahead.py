"""``lookahead`` and ``clairvoyant`` in hand-built positions, their settings, and their reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.game.cards import SUIT_NAMES, parse_card
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.search.position import Position, PositionBatch
from nines_sim.strategies.lookahead import Clairvoyant, Lookahead, SettingError
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind
from nines_sim.strategy.registry import load_class, make_lineup
from tests.position_seats import PositionSeats

R2 = make_rules("classic", players=2)


def _cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def position(mine: str, theirs: str, top: str, drew_on: int = 0, seed: int = 0) -> Position:
    """Seat 0 to move holding ``mine``; seat 1 holds ``theirs``; the other cards in the stock, shuffled."""
    a, b, t = _cards(mine), _cards(theirs), parse_card(top)
    rest = [f for f in range(52) if f not in {*a, *b, t}]
    stock = tuple(np.random.default_rng(seed).permutation(rest).tolist())
    return Position(R2, (a, b), stock, (), t, int(t // 13), seat=0, dealer=1, drew_on=(0, drew_on), turn=6)


def decide(strategy, pos: Position, copies: int = 4) -> np.ndarray:
    """The strategy's play in ``copies`` games of one position, each with its own decision stream."""
    batch = PositionBatch.from_positions([pos] * copies)
    batch.arrays["dkey"] = np.arange(1, copies + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    eng = PositionSeats(batch, make_lineup([strategy, "expert"]))
    idx = np.arange(copies)
    legal = eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    return eng.decide(DecisionKind.PLAY, idx, eng.seat.copy(), legal=legal)


def test_lookahead_keeps_the_nine_to_go_out_with():
    # KH now, then the 9 goes out on anything next turn; the 9 now leaves KH, which may never be legal
    plays = decide(Lookahead(samples=96), position("KH 9S", "2C 3C 4D 5D 6S 8S JC", "7H"))
    assert (plays == parse_card("KH")).all()


def test_lookahead_plays_the_nine_that_wins_rather_than_the_natural_that_loses():
    # as below, but not seeing seat 1's one card: 3H leaves 9S 4D (19 points) to any heart, 3 or 9;
    # 9S, then diamonds, loses only 3H 4D (7 points) to a diamond or a 9, and 4D goes out next
    plays = decide(Lookahead(samples=64), position("9S 3H 4D", "2H", "7H"))
    assert (plays == parse_card("9S")).all()


def test_lookahead_goes_out_with_two_nines_when_it_can():
    # V4: the pair is the last two cards.  One 9 alone goes out a turn later, after the opponent has
    # most likely followed the declared suit with one of its six cards: a smaller penalty for it.
    rules = make_rules("double-nines", players=2)
    mine, theirs, top = _cards("9S 9H"), _cards("2C KD QD 5S 8S JH"), parse_card("7H")
    rest = [f for f in range(52) for _ in range(2)]
    for f in (*mine, *theirs, top):
        rest.remove(f)
    stock = tuple(np.random.default_rng(1).permutation(rest).tolist())
    pos = Position(rules, (mine, theirs), stock, (), top, int(top // 13), seat=0, dealer=1, turn=6)
    assert (decide(Lookahead(samples=64), pos) == PAIR_OF_NINES).all()


def test_lookahead_keeps_the_suit_a_one_card_opponent_drew_on():
    # Seat 1 drew while clubs were active, so it held no club and no 9 then (T1).  QD lets it out with
    # any diamond; 7C with a club, which it is unlikely to hold.  Without inference QD keeps the
    # smaller hand (15 points against 12 of 7C 2S 3S) and wins out: the inference makes the difference.
    pos = position("QD 7C 2S 3S", "KD", "7D", drew_on=1 << SUIT_NAMES.index("C"))
    assert (decide(Lookahead(samples=512, infer=1.0), pos) == parse_card("7C")).all()
    assert (decide(Lookahead(samples=512, infer=0.0), pos) == parse_card("QD")).all()


def test_the_suit_after_two_nines_is_searched_with_the_next_seat_skipped():
    # V4: the declaration after a pair hands the turn to the seat after next, as the engine applies it
    from nines_sim.engine.positions import PositionSlots
    from nines_sim.search.pimc import engine_moves

    rules = make_rules("double-nines", players=3)
    deck = [f for f in range(52) for _ in range(2)]
    hands = (_cards("5S 6S"), _cards("KD"), _cards("KC 2C"))
    top = parse_card("9H")
    for f in (*hands[0], *hands[1], *hands[2], top):
        deck.remove(f)
    pos = Position(rules, hands, tuple(deck), (), top, 2, seat=0, dealer=2, turn=4)
    batch = PositionBatch.from_positions([pos, pos])
    moves = engine_moves(DecisionKind.DECLARE, np.array([3, 3]), None, pair=np.array([True, False]))
    slots = PositionSlots(batch, "hand", make_lineup(["expert"] * 3), moves, release=False, trace=True)
    after_pair, after_one = ([ev for ev in e if ev[0] != "turn"][:3] for e in slots.events)
    assert after_pair == [("pair", 0, 3), ("skip", 1), ("draw", 2, 0)]  # seat 1 skipped: seat 2 draws
    assert after_one == [("play", 0, top, 3), ("draw", 1, 0), ("draw", 2, 0)]


def test_lookahead_declares_after_its_own_pair_as_after_a_pair(monkeypatch):
    # the strategy remembers in which games it played two 9s and says so to the declaration's search
    import nines_sim.strategies.lookahead as mod

    asked = []

    def fake_search(obs, worlds_of, samples, policy, outcome, card=None, rounds=1, pair=None):
        asked.append((obs.kind, None if pair is None else pair.tolist()))
        return np.full(obs.n, PAIR_OF_NINES if obs.kind == DecisionKind.PLAY else 0, dtype=np.int64)

    monkeypatch.setattr(mod, "search", fake_search)
    la = Lookahead(samples=2)
    rules = make_rules("double-nines", players=2)
    mine, top = _cards("9S 9H 4C"), parse_card("7H")
    rest = [f for f in range(52) for _ in range(2)]
    for f in (*mine, *_cards("2C 3C"), top):
        rest.remove(f)
    pos = Position(rules, (mine, _cards("2C 3C")), tuple(rest), (), top, 2, seat=0, dealer=1, turn=6)
    batch = PositionBatch.from_positions([pos] * 2)
    batch.arrays["dkey"] = np.array([5, 6], dtype=np.uint64)
    eng = PositionSeats(batch, [la, make_lineup(["expert"])[0]])
    idx, seats = np.arange(2), np.zeros(2, dtype=np.int64)
    legal = eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    eng.decide(DecisionKind.PLAY, idx[:1], seats[:1], legal=legal[:1])  # game 0 plays a pair, game 1 does not
    eng.decide(DecisionKind.DECLARE, idx, seats)
    assert asked[-1] == (DecisionKind.DECLARE, [True, False])
    eng.decide(DecisionKind.DECLARE, idx, seats)  # a later declaration in the same turn is not after the pair
    assert asked[-1][0] == DecisionKind.DECLARE and not any(asked[-1][1] or [])


def test_clairvoyant_plays_the_nine_that_wins_rather_than_the_natural_that_loses():
    # 3H keeps hearts: seat 1 goes out with 2H and seat 0 keeps 9S + 4D (19 points).  9S switches
    # the suit (to diamonds): seat 1 cannot follow, seat 0 then goes out with 4D.
    pos = position("9S 3H 4D", "2H", "7H")
    plays = decide(Clairvoyant(samples=32), pos)
    assert (plays == parse_card("9S")).all()


def test_clairvoyant_keeps_the_suit_a_one_card_opponent_cannot_follow():
    # QD would let diamonds on: seat 1's last card is a diamond; 7C keeps it out of play
    pos = position("QD 7C 2S 3S", "KD", "7D", drew_on=1 << SUIT_NAMES.index("C"))
    plays = decide(Clairvoyant(samples=32), pos)
    assert (plays == parse_card("7C")).all()


@pytest.mark.parametrize(
    "values, words",
    [
        (dict(samples=0), r"samples must lie in 1\.\.4096"),
        (dict(samples=2.5), "samples takes an integer"),
        (dict(policy="lookahead"), "policy must be one of"),
        (dict(outcome="win"), r"outcome must be one of hand\|match"),
        (dict(width=3), "has no parameter 'width'"),
    ],
)
def test_bad_settings_are_refused_in_one_line(values, words):
    with pytest.raises(SettingError, match=words) as e:
        Lookahead(**values)
    assert "\n" not in str(e.value)


def test_clairvoyant_says_it_sees_hidden_cards_and_lookahead_does_not():
    assert load_class("clairvoyant").classifier["sees_hidden_cards"] is True
    assert load_class("lookahead").classifier["sees_hidden_cards"] is False


def test_settings_come_in_a_strategy_spec():
    assert make_lineup(["lookahead:samples=16,rounds=2"])[0].samples == 16
    with pytest.raises(Exception, match="samples must lie in"):
        make_lineup(["lookahead:samples=0"])


def test_same_seed_same_decisions_for_every_worker_count():
    rules = make_rules("classic", players=2)
    la = Lookahead(samples=8)
    one = simulate(rules, [la, "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(rules, [la, "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)


def test_a_tournament_with_clairvoyant_says_so_in_the_terminal_and_the_report(tmp_path):
    from typer.testing import CliRunner

    from nines_sim.cli import app

    res = CliRunner().invoke(
        app, ["tournament", "clairvoyant", "expert", "--matches", "2", "--players", "2", "--seed", "3",
              "--workers", "1", "--no-charts", "--out", str(tmp_path)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Not a fair comparison: clairvoyant sees every hand" in res.output
    assert "Not a fair comparison" in (tmp_path / "report.md").read_text()
    listing = CliRunner().invoke(app, ["strategies"]).output
    assert "NOT A FAIR PLAYER" in listing.split("clairvoyant", 1)[1].split("\n")[2]


@pytest.mark.parametrize("preset", ["classic", "hard-nines", "double-nines+skip-reverse", "draw-until-playable"])
@pytest.mark.parametrize("cls", [Lookahead, Clairvoyant])
def test_search_players_make_only_legal_moves_and_keep_every_card_in_one_place(preset, cls):
    from tests.test_properties import run_checked

    rules = make_rules(preset)
    strat = cls(samples=4)
    if cls is Clairvoyant:  # the checker's wrapper would hide the true cards from it: play it unwrapped
        res = simulate(rules, [strat, "random", "hold-nines", "dump-faces"], 3, seed=2, batch_size=3)
    else:
        _, res = run_checked(rules, 3, seed=2, names=[strat, "random", "hold-nines", "dump-faces"])
    assert len(res.match) == 3 and np.allclose(res.win_share.sum(axis=1), 1.0)


def test_successive_halving_still_finds_the_obvious_move_and_is_reproducible():
    la = Lookahead(samples=32, rounds=3)
    pos = position("KH 9S", "2C 3C 4D 5D 6S 8S JC", "7H")
    first = decide(la, pos)
    assert (first == parse_card("KH")).all()
    assert np.array_equal(first, decide(la, pos))


def test_clairvoyant_has_no_infer_setting_and_says_which_it_has():
    with pytest.raises(Exception, match="clairvoyant has no parameter 'infer'; its parameters are: samples"):
        make_lineup(["clairvoyant:infer=1"])
    assert make_lineup(["lookahead:infer=0"])[0].infer == 0


@pytest.mark.parametrize("preset", ["classic", "double-nines"])
def test_a_nine_searched_with_a_suit_is_valued_as_the_engine_plays_the_nine_then_that_suit(preset):
    # Same samples and rollout streams: the 9 played with the suit expert would declare (D, its only
    # suit after the 9) rolls out exactly as the 9 forced alone with expert declaring, sample by sample.
    from nines_sim.search.pimc import NINE_SUIT, candidates, evaluate
    from nines_sim.search.sampler import sample_positions

    rules = make_rules(preset, players=3)
    mine, top = _cards("9C KD 8D 3D"), parse_card("AD")
    rest = [f for f in range(52) for _ in range(rules.decks)]
    for f in (*mine, top):
        rest.remove(f)
    rest = np.random.default_rng(1).permutation(rest).tolist()
    pos = Position(rules, (mine, tuple(rest[:5]), tuple(rest[5:9])), tuple(rest[9:]), (), top, int(top // 13),
                   seat=0, dealer=2, turn=3)  # fmt: skip
    eng = PositionSeats(PositionBatch.from_positions([pos]), make_lineup(["expert"] * 3))
    idx = np.zeros(1, dtype=np.int64)
    obs = eng.observe(
        idx, eng.seat.copy(), DecisionKind.PLAY, eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    )
    policy = make_lineup(["expert"])[0]
    apart, joint = candidates(obs), candidates(obs, nine_suits=True)
    nine = parse_card("9C")
    assert sorted(joint[0].tolist()) == sorted([f for f in apart[0].tolist() if f != nine]
                                               + [NINE_SUIT + 4 * nine + s for s in range(4)])  # fmt: skip
    worlds = sample_positions(obs, 64)
    a = evaluate(obs, worlds, apart, policy)
    b = evaluate(obs, worlds, joint, policy)
    value = dict(zip(b.moves[0].tolist(), b.mean[0].tolist(), strict=True))
    for m, v in zip(a.moves[0].tolist(), a.mean[0].tolist(), strict=True):
        assert value[NINE_SUIT + 4 * nine + 1 if m == nine else m] == v
    assert len({round(value[NINE_SUIT + 4 * nine + s], 9) for s in range(4)}) > 1  # the suit matters


@pytest.mark.parametrize("preset, nines", [("classic", "with-suit"), ("double-nines+skip-reverse", "clear-suit")])
def test_nines_with_suit_plays_legally_and_the_same_for_any_batch_size(preset, nines):
    from tests.test_properties import run_checked

    rules = make_rules(preset)
    strat = Lookahead(samples=4, nines=nines)
    _, res = run_checked(rules, 3, seed=2, names=[strat, "random", "hold-nines", "dump-faces"])
    assert len(res.match) == 3 and np.allclose(res.win_share.sum(axis=1), 1.0)
    r2 = make_rules("classic", players=2)
    la = Lookahead(samples=8, nines=nines)
    one = simulate(r2, [la, "expert"], 6, seed=4, batch_size=6)
    two = simulate(r2, [la, "expert"], 6, seed=4, batch_size=2)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)
    assert not la._suits  # every 9 chosen with its suit was followed by that declaration


def test_clear_suit_keeps_a_nine_with_a_suit_only_where_it_clearly_beats_the_plain_nine():
    from nines_sim.search.pimc import NINE_SUIT, Estimate, _nine_suits_clearly_better

    nine = parse_card("9C")
    moves = np.array([[parse_card("3D"), nine, NINE_SUIT + 4 * nine + 2, NINE_SUIT + 4 * nine + 3]])
    noise = np.random.default_rng(0).normal(size=64)
    plain = 1.0 + noise
    values = np.stack([np.zeros(64), plain, plain + 0.5 + 0.1 * noise[::-1], plain + 0.01 * noise[::-1]])[None]
    est = Estimate(moves, values.mean(axis=2), values.std(axis=2, ddof=1) / 8, values)
    mean = _nine_suits_clearly_better(est)
    # 9C with hearts gains 0.5 on every sample (paired t ~ 40): kept; with spades, a gain of noise: dropped
    assert mean[0, 2] == est.mean[0, 2] and mean[0, 3] == -np.inf
    assert np.array_equal(mean[0, :2], est.mean[0, :2])


def test_near_end_scores_the_match_only_in_games_where_a_total_nears_the_target(monkeypatch):
    import nines_sim.strategies.lookahead as mod

    asked = []

    def fake_search(obs, worlds_of, samples, policy, outcome, card=None, rounds=1, pair=None):
        asked.append((outcome, obs.totals.max(axis=1).tolist()))
        return np.full(obs.n, -1, dtype=np.int64)

    monkeypatch.setattr(mod, "search", fake_search)
    la = Lookahead(samples=2, outcome="near-end")
    near = 100 - mod.NEAR_END
    positions = [
        position("KH 9S", "2C 3C", "7H").with_(totals=(t, 0)) for t in (near - 1, near, 5)
    ]  # the target is 100 (S2)
    eng = PositionSeats(PositionBatch.from_positions(positions), [la, make_lineup(["expert"])[0]])
    idx = np.arange(3)
    legal = eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    la.play(eng.observe(idx, eng.seat.copy(), DecisionKind.PLAY, legal))
    assert sorted(asked) == [("hand", [near - 1, 5]), ("match", [near])]


@pytest.mark.parametrize("spec", ["lookahead:samples=8,draws=log", "ismcts:iterations=8,draws=log"])
def test_T1_draws_log_plays_legally_and_the_same_for_any_worker_count_and_batch_size(spec):
    from tests.test_properties import run_checked

    rules = make_rules("classic", players=3)  # two hidden hands, each weighed by its own log
    _, res = run_checked(rules, 2, seed=3, names=[make_lineup([spec])[0], "expert", "dump-faces"])
    assert len(res.match) == 2 and np.allclose(res.win_share.sum(axis=1), 1.0)
    one = simulate(rules, [make_lineup([spec])[0], "expert", "dump-faces"], 4, seed=4, workers=1, batch_size=4)
    two = simulate(rules, [make_lineup([spec])[0], "expert", "dump-faces"], 4, seed=4, workers=2, batch_size=1,
                   chunk_size=2)  # fmt: skip
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)
