"""A strategy can see the deal: it must not (issue 10, section 2).

The random words a strategy gets (``Observation.random``) come from the decision
root, the cards from the card root (``nines_sim.game.rng``).  Here a plug-in plays the
attack of the issue: it inverts the SplitMix64 finaliser on its random word to get
the key back, recomputes the deal as the engine would, and tries to read its
opponents' hands and the stock.  A control feeds the same attack the word the old
scheme handed out (a decision stream keyed by the card hand key) and rebuilds every
deal and draw of the same run, so the test fails if the engine leaks again.
"""

from __future__ import annotations

import gc

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game import rng
from nines_sim.game.rules import make_rules
from nines_sim.strategy.base import DecisionKind, Observation, PublicState, Strategy
from tests.det_strategies import Lowest

M64 = (1 << 64) - 1
SEED, MATCHES, P = 9, 160, 4


def unmix(x: int) -> int:
    """Inverse of the SplitMix64 finaliser ``rng.mix_int``."""
    x ^= (x >> 31) ^ (x >> 62)
    x = (x * pow(0x94D049BB133111EB, -1, 1 << 64)) & M64
    x ^= (x >> 27) ^ (x >> 54)
    x = (x * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & M64
    x ^= (x >> 30) ^ (x >> 60)
    return x


def key_from_word(word: int, purpose: int, counter: int) -> int:
    """The key behind ``rng.stream(key, purpose, counter)``."""
    return unmix(word) ^ ((purpose * rng.PURPOSE) & M64) ^ ((counter * rng.COUNTER) & M64)


def rebuild_deal(key: int, dealer: int, players: int, size: int) -> tuple[tuple[tuple[int, ...], ...], int, list]:
    """The deal the engine makes from hand key ``key`` (one deck, every seat in): hands per seat, starter, stock."""
    words = rng.stream(np.array([[key]], dtype=np.uint64), rng.DEAL, np.arange(52, dtype=np.uint64)[None, :])
    ids = np.argsort(words[0], kind="stable").tolist()
    hands: list[tuple[int, ...]] = [()] * players
    for i in range(players):
        hands[(dealer + 1 + i) % players] = tuple(sorted(ids[i : players * size : players]))
    return tuple(hands), ids[players * size], ids[players * size + 1 :]


class DealReader(Strategy):
    """Plays the lowest legal card; when it declares at a 9 starter (turn 0, before anyone
    has moved) it inverts its random word and rebuilds the whole deal from it."""

    name = "deal-reader"
    classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

    def __init__(self):
        self.inner = Lowest()
        self.guesses: list[tuple] = []  # (dealer, rebuilt hands, rebuilt stock, own hand matched)

    def play(self, obs: Observation) -> np.ndarray:
        return self.inner.play(obs)

    def declare(self, obs: Observation) -> np.ndarray:
        if obs.kind == DecisionKind.DEALER_DECLARE:
            words = obs.random(salt=0).tolist()
            for j, word in enumerate(words):
                key = key_from_word(word, rng.DECISION + int(DecisionKind.DEALER_DECLARE), 0)
                own = tuple(f for f in range(52) if (int(obs.held[j]) >> f) & 1)
                dealer = int(obs.dealer[j])
                hands, _, stock = rebuild_deal(key, dealer, obs.players, len(own))
                self.guesses.append((dealer, hands, stock, hands[int(obs.seat[j])] == own))
        return self.inner.declare(obs)


def _nine_starter_deals(trace: dict) -> list[tuple]:
    """(match, hand_seq, dealer, hands, draws before the first reshuffle) of every hand dealt with a 9 starter."""
    out = []
    for m, events in trace.items():
        for i, ev in enumerate(events):
            if ev[0] == "deal" and ev[4] % 13 == 8:
                draws = []
                for later in events[i + 1 :]:
                    if later[0] in ("reshuffle", "end"):
                        break
                    if later[0] in ("draw", "penalty_draw"):
                        draws.append(later[2])
                out.append((m, ev[1], ev[2], ev[3], draws))
    return out


def _played_with_the_attacker():
    reader = DealReader()
    e = CompiledEngine(make_rules("classic"), [reader] * P, SEED, 0, MATCHES, batch_size=64, trace=True)
    e.run()
    return reader, _nine_starter_deals(e.trace)


def test_strategy_cannot_see_the_deal_by_inverting_its_random_numbers():
    reader, deals = _played_with_the_attacker()
    assert len(reader.guesses) == len(deals) >= 40
    true_hands = {hands for _, _, _, hands, _ in deals}
    true_draws = [draws for *_, draws in deals if len(draws) >= 3]
    for _dealer, hands, stock, own_matched in reader.guesses:
        assert not own_matched  # not even its own hand comes out of the rebuilt deal
        assert hands not in true_hands
        for seat_hand in hands:  # no seat's dealt hand, in any of the deals
            assert all(seat_hand != h[s] for h in true_hands for s in range(P))
        assert all(stock[:3] != d[:3] for d in true_draws)


def test_strategy_could_see_the_deal_under_the_old_scheme():
    """The control: the old scheme keyed decisions by the card hand key; the attack then rebuilds every deal."""
    _, deals = _played_with_the_attacker()
    card_root, _ = rng.roots(SEED)
    size = make_rules("classic").hand_size(P)
    n_draws = 0
    for m, hand_seq, dealer, hands, draws in deals:
        card_key = rng.hand_keys(rng.match_keys(card_root, np.array([m])), np.array([hand_seq]))
        old_word = int(rng.stream(card_key, rng.DECISION + int(DecisionKind.DEALER_DECLARE), 0)[0])
        key = key_from_word(old_word, rng.DECISION + int(DecisionKind.DEALER_DECLARE), 0)
        got_hands, _, stock = rebuild_deal(key, dealer, P, size)
        assert got_hands == hands
        assert stock[: len(draws)] == draws  # every draw predicted before it happened
        n_draws += len(draws)
    assert n_draws > 100


def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` by references (attributes, slots, containers, array bases)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type | str | bytes | int | float):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
        if isinstance(obj, np.ndarray) and obj.base is not None:
            todo.append(obj.base)
    return list(seen.values())


def test_an_observation_offers_its_fields_only():
    """No path from an observation leads to the engine, another seat's hand, the stock or a card key."""
    rules = make_rules("double-nines", players=4)
    e = CompiledEngine(rules, [Lowest()] * 4, SEED, 0, 32, batch_size=32)
    e.start_run()
    for _ in range(6):
        e.advance()
    idx = np.arange(e.B)
    obs = e.observe(idx, e.seat.copy(), DecisionKind.PLAY)
    for name in ("hand", "pair_legal", "top", "hand_sizes", "totals", "stock_size", "in_hand", "played", "drew_on"):
        getattr(obs, name)
    obs.random()
    assert not hasattr(obs, "__dict__") and not hasattr(obs, "_e")
    # the discard pile below the top card is public (every card in it was played face up): obs.pile shows it
    hidden = [*e.hands, e.stock, e.hkey, e.mkey]
    reachable = _reachable(obs)
    assert not any(obj is e for obj in reachable)
    for obj in reachable:
        if isinstance(obj, np.ndarray):
            assert not any(np.shares_memory(obj, h) for h in hidden)
    # the public state it reads from is read-only (numpy's `.base` of a view still leads to the
    # engine's own public arrays: plug-ins are trusted code, see README "Trust model")
    public = [obj for obj in reachable if isinstance(obj, PublicState)]
    assert len(public) == 1
    for name in PublicState.ARRAYS:
        assert not getattr(public[0], name).flags.writeable, name


def test_an_observation_shows_its_rules_and_a_subset_of_its_games():
    """``rules`` and ``subset`` are public, so a search player needs no private attribute (issue 24)."""
    rules = make_rules("double-nines", players=4)
    e = CompiledEngine(rules, [Lowest()] * 4, SEED, 0, 32, batch_size=32)
    e.start_run()
    for _ in range(6):
        e.advance()
    obs = e.observe(np.arange(e.B), e.seat.copy(), DecisionKind.PLAY)
    assert obs.rules is rules and obs.rules.pair_of_nines
    rows = np.array([5, 0, 17])
    sub = obs.subset(rows)
    assert sub.n == 3 and sub.kind == obs.kind and sub.rules is rules
    for name in ("seat", "legal", "top", "active_suit", "hand_sizes", "totals", "played", "drew_on"):
        np.testing.assert_array_equal(getattr(sub, name), getattr(obs, name)[rows], err_msg=name)
    for mine, whole in zip(sub.hand, obs.hand, strict=True):
        np.testing.assert_array_equal(mine, whole[rows])
    # the same games draw the same random words, whichever subset they are decided in
    np.testing.assert_array_equal(sub.random(3), obs.random(3)[rows])
