"""The search's engine call steps positions as the reference plays them, event by event.

A search applies a candidate move to a batch of positions with one engine call
(:class:`nines_sim.engine.positions.PositionSlots` with a :class:`~nines_sim.engine.moves.Moves`) and
then answers the decisions its slots stop at (``ismcts``) or lets the rollout policy play.  Here every
decision of a match under every preset at 2-6 seats is taken as a position (the engine's state
while it waits on the deterministic seats of ``tests/det_strategies.py``), its move is applied by that
call, the later decisions of the hand are answered as the run answered them, and the events of the
continuation, traced, must be the reference's (``nines_sim/game/reference``) from that decision to the
hand's end (T1-T8, D6, V1-V6).
"""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine import turn_loop as K
from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.moves import Moves
from nines_sim.engine.positions import PositionSlots
from nines_sim.game.cards import NINE_RANK
from nines_sim.game.codes import PAIR_OF_NINES, DecisionKind
from nines_sim.game.reference import play_match
from nines_sim.game.rules import PRESETS, RulesError, make_rules
from nines_sim.search.position import PositionBatch, positions_from_engine
from tests.det_strategies import HighestPair, Lowest
from tests.test_compiled import SAME_PATHS_AS_FIXED_HANDS_10

SEED = 20261206
#: One match per preset and table size: about 85 decisions stepped under Double Nines at 3 seats, of every kind
#: (``test_the_decisions_stepped_are_of_every_kind``); two stepped 200 for twice the processor time (issue 42).
MATCHES = 1
#: Decisions of a match taken as positions (its first ones: most hands end sooner).
PER_MATCH = 60


def _seats(preset: str) -> list[int]:
    """The table sizes a preset allows (make_rules refuses the others)."""
    ok = []
    for players in range(2, 7):
        try:
            make_rules(preset, players=players)
        except RulesError:
            continue
        ok.append(players)
    return ok


#: Every preset but two of the three fixed-hands ones: a fixed-hands match deals the hands of classic's match of
#: the same seed and stops after N (S3), so that fixed-hands-5's and -7's decisions are those of fixed-hands-10's
#: first hands, stepped there (their S3 endings are tests/test_properties.py's and the reference agreement's).
CASES = [
    pytest.param(preset, p, id=f"{preset}-{p}p")
    for preset in PRESETS
    if preset not in SAME_PATHS_AS_FIXED_HANDS_10
    for p in _seats(preset)
]


def _decisions(rules, lineup, matches):  # noqa: ANN001, ANN202 - test helper
    """Play ``matches`` matches traced; every decision as (match, position, kind, seat, card, pair, answer,
    events before it), in each match's order, and each match's events."""
    eng = CompiledEngine(rules, lineup, SEED, 0, matches, batch_size=matches, trace=True)
    taken: dict[int, list] = {m: [] for m in range(matches)}
    answer = eng._answer

    def capture(waiting: np.ndarray) -> None:
        st = eng.st
        rows = []
        for b in waiting.tolist():
            m = int(eng.match[b])
            before = sum(ev[0] != "turn" for ev in eng.trace.get(m, []))
            rows.append((b, m, positions_from_engine(eng, np.array([b])), int(st[b, K.S_WAIT_KIND]),
                         int(st[b, K.S_WAIT_SEAT]), int(st[b, K.S_CARD]), int(st[b, K.S_MOVE]) == PAIR_OF_NINES,
                         before))  # fmt: skip
        answer(waiting)
        for b, m, pos, kind, seat, card, pair, before in rows:
            taken[m].append((pos, kind, seat, card, pair, int(st[b, K.S_ANSWER]), before))

    eng._answer = capture  # type: ignore[method-assign]
    eng.run()
    return taken, eng.trace


def _step(lineup, decisions, i):  # noqa: ANN001, ANN202 - test helper
    """Decision ``i`` of a match applied by the engine call, the hand's later decisions answered as the run
    answered them; the continuation's events (turn marks left out)."""
    pos, kind, seat, card, pair, ans, _ = decisions[i]
    nxt = i + 1
    suit = None
    follow = decisions[nxt] if nxt < len(decisions) else None
    if (
        kind == DecisionKind.PLAY
        and ans % 13 == NINE_RANK
        and ans < 52
        and follow
        and follow[1] == DecisionKind.DECLARE
    ):
        suit = np.array([follow[5]])  # the 9 and its suit in one move, as lookahead searches them (T3)
        nxt += 1
    moves = Moves(DecisionKind(kind), np.array([ans]), card=np.array([card]), pair=np.array([pair]), suit=suit)
    slots = PositionSlots(pos, "hand", lineup, moves, release=False, trace=True)
    while True:
        slots.run(every_seat=True)
        w = slots.waiting()
        if not w.size or slots.scored[0]:  # the hand is over (a tie on the totals may play on, S4)
            break
        k, s, _, _ = slots.decision(w)
        _, want_kind, want_seat, *_, want_ans, _ = decisions[nxt]
        assert (int(k[0]), int(s[0])) == (want_kind, want_seat), f"decision {nxt} after decision {i}"
        slots.answer(w, [want_ans])
        nxt += 1
    events = [ev for ev in slots.events[0] if ev[0] != "turn"]
    end = next(j for j, ev in enumerate(events) if ev[0] == "end")
    return events[: end + 1]


@pytest.mark.parametrize("preset, players", CASES)
def test_positions_step_through_the_engine_as_the_reference_plays(preset: str, players: int) -> None:
    rules = make_rules(preset, players=players)
    lineup = [Lowest() if s % 2 == 0 else HighestPair() for s in range(players)]
    names = [st.name for st in lineup]
    taken, trace = _decisions(rules, lineup, MATCHES)
    for m in range(MATCHES):
        ref = play_match(rules, names, SEED, m)["events"]
        assert [_plain(ev) for ev in trace[m] if ev[0] != "turn"] == ref  # the run itself is the reference's
        for i in _chosen(taken[m]):
            before = taken[m][i][6]
            got = [_plain(ev) for ev in _step(lineup, taken[m], i)]
            end = next(j for j in range(before, len(ref)) if ref[j][0] == "end")
            assert got == ref[before : end + 1], (
                f"{preset} {players}p match {m} decision {i} ({DecisionKind(taken[m][i][1]).name}): "
                f"engine {got[:4]}... reference {ref[before : before + 4]}..."
            )


def _chosen(decisions: list) -> list[int]:
    """The decisions stepped: the first ``PER_MATCH``, and every later one that is not a play at a turn's start."""
    return [i for i, d in enumerate(decisions) if i < PER_MATCH or d[1] != DecisionKind.PLAY]


def _plain(x):  # noqa: ANN001, ANN202 - test helper
    if isinstance(x, (tuple, list)):
        return tuple(_plain(y) for y in x)
    if isinstance(x, np.generic):
        return x.item()
    return x


def test_the_decisions_stepped_are_of_every_kind() -> None:
    # what the test above reaches under Double Nines at 3 seats: a play, the 9 with its suit, two 9s (V4), the
    # drawn card (T4), the suit after a 9 (T3) and the dealer's suit after a 9 starter (D6)
    rules = make_rules("double-nines", players=3)
    lineup = [Lowest() if s % 2 == 0 else HighestPair() for s in range(3)]
    taken, _ = _decisions(rules, lineup, MATCHES)
    seen = {DecisionKind(taken[m][i][1]).name for m in taken for i in _chosen(taken[m])}
    seen |= {"pair" for m in taken for i in _chosen(taken[m]) if taken[m][i][4]}
    seen |= {"nine" for m in taken for i in _chosen(taken[m]) if taken[m][i][1] == DecisionKind.PLAY
             and taken[m][i][5] < 52 and taken[m][i][5] % 13 == NINE_RANK}  # fmt: skip
    assert seen == {"PLAY", "PLAY_DRAWN", "DECLARE", "DEALER_DECLARE", "pair", "nine"}


def test_a_batch_of_positions_steps_as_each_alone() -> None:
    # the engine call is per slot: a batch of many positions leaves each where it leaves it alone
    rules = make_rules("double-nines", players=4)
    lineup = [Lowest() if s % 2 == 0 else HighestPair() for s in range(4)]
    taken, _ = _decisions(rules, lineup, 1)
    play = [d for d in taken[0] if d[1] == DecisionKind.PLAY][:12]
    batch = PositionBatch.from_positions([d[0].position(0) for d in play])
    ans = np.array([d[5] for d in play])
    together = PositionSlots(batch, "hand", lineup, Moves(DecisionKind.PLAY, ans), release=False)
    together.run(every_seat=True)
    for j, d in enumerate(play):
        alone = PositionSlots(d[0], "hand", lineup, Moves(DecisionKind.PLAY, ans[j : j + 1]), release=False)
        alone.run(every_seat=True)
        # the match index is the slot's; a position's stock starts at its next card (Position.stock)
        cols = ~np.isin(np.arange(K.NST), [K.S_MATCH, K.S_POS, K.S_END])
        assert np.array_equal(alone.st[0, cols], together.st[j, cols])
        stock = [s.slots.stock[r, s.st[r, K.S_POS] : s.st[r, K.S_END]] for s, r in ((alone, 0), (together, j))]
        assert np.array_equal(*stock)
        assert np.array_equal(alone.slots.hands[:, 0], together.slots.hands[:, j])
        assert np.array_equal(alone.penalties[0], together.penalties[j])


@pytest.mark.parametrize("to", ["hand", "match"])
def test_every_kind_of_first_move_plays_out_alike_on_the_loop_alone_and_with_python_seats(to, monkeypatch):
    # play_out's first move of each kind: on the loop alone (compiled seats) and on the compiled engine whose
    # broker asks the classes in Python (the move stepped first, then the engine plays on): the same outcome
    from nines_sim.search.position import play_out
    from nines_sim.strategy.registry import make_lineup
    from tests.interrupt import built_ins_as_python_seats

    rules = make_rules("double-nines", players=3)
    taken, _ = _decisions(rules, [Lowest() if s % 2 == 0 else HighestPair() for s in range(3)], MATCHES)
    lineup = make_lineup(["expert", "dump-faces", "random"])
    by_kind: dict[int, list] = {}
    for m in taken:
        for d in taken[m]:
            by_kind.setdefault(d[1], []).append(d)
    assert set(by_kind) == {int(k) for k in DecisionKind}
    for kind, ds in by_kind.items():
        ds = ds[:10]
        batch = PositionBatch.from_positions([d[0].position(0) for d in ds])
        moves = Moves(DecisionKind(kind), np.array([d[5] for d in ds]), card=np.array([d[3] for d in ds]),
                      pair=np.array([d[4] for d in ds]))  # fmt: skip
        with monkeypatch.context() as mp:
            b = play_out(batch, lineup, to=to, moves=moves)  # the compiled twins, on the loop alone
            built_ins_as_python_seats(mp)
            a = play_out(batch, lineup, to=to, moves=moves)  # the classes, asked through the engine's broker
        assert np.array_equal(a[0], b[0]) and b[0].sum() > 0, DecisionKind(kind).name
        if to == "match":
            assert np.array_equal(a[1], b[1])
