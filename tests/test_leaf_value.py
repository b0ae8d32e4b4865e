"""The learned leaf value and the search players' ``leaf=learned,depth=K``: the value reads one seat's observation
only, a stop past the turn cap is today's search byte for byte, bad settings and files are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.engine.position import PositionBatch
from nines_sim.engine.positions import play_out, play_out_leaves
from nines_sim.game.rules import make_rules
from nines_sim.learn.value import ValueFileError, load_value, shipped_value
from nines_sim.learn.value_fit import dealt_positions
from nines_sim.search.pimc import Leaf, candidates, sample_values
from nines_sim.search.player import SettingError
from nines_sim.strategy.registry import make_lineup

RULES = make_rules("classic", players=2)


@pytest.fixture(scope="module")
def leaves():
    """Positions met by ``learned`` at both seats at turns 1-30 of fresh deals, still running there."""
    lineup = make_lineup(["learned", "learned"])
    batch = dealt_positions(RULES, lineup, seed=8, n=250)
    stop = np.random.default_rng(8).integers(1, 31, size=batch.n)
    _, stopped, state = play_out_leaves(batch, lineup, stop)
    return PositionBatch(RULES, state=state).take(np.flatnonzero(stopped)), lineup


def test_the_value_reads_only_the_seats_own_observation(leaves):
    batch, _ = leaves
    value = shipped_value(RULES, "learned")
    other = batch.take(np.arange(batch.n))
    st, hands, stock = other.state.st, other.state.hands, other.state.stock
    from nines_sim.engine.slots import S_END, S_POS

    changed = []
    for b in range(batch.n):  # seat 1's lowest card and the stock's next card change places: seat 0 sees the same
        pos, end = st[b, S_POS], st[b, S_END]
        h = int(hands[0, b, 1])
        if pos >= end or h == 0:
            continue
        low = (h & -h).bit_length() - 1
        nxt = int(stock[b, pos])
        if (h >> nxt) & 1:
            continue
        hands[0, b, 1] = np.uint64((h & ~(1 << low)) | (1 << nxt))
        stock[b, pos] = low
        changed.append(b)
    rows = np.array(changed)
    assert rows.size > 20
    zero, one = np.zeros(rows.size, dtype=np.int64), np.ones(rows.size, dtype=np.int64)
    assert np.array_equal(value.of(batch.state, rows, zero), value.of(other.state, rows, zero))
    # the control: seat 1's own hand changed, so its value does
    assert not np.array_equal(value.of(batch.state, rows, one), value.of(other.state, rows, one))
    # and the seats' true hand penalties, which the value never reads, differ
    assert not np.array_equal(play_out(batch, leaves[1])[0], play_out(other, leaves[1])[0])


def test_the_shipped_value_predicts_the_hand_on_positions_it_was_not_fitted_on(leaves):
    batch, lineup = leaves
    value = shipped_value(RULES, "learned")
    pen, _ = play_out(batch, lineup)
    pred = value.of(batch.state, np.arange(batch.n), np.zeros(batch.n, dtype=np.int64))
    r = np.corrcoef(pred, pen[:, 1] - pen[:, 0])[0, 1]
    # 1 / sqrt(n) is about the standard error of a correlation near 0: this one is 3 of them clear of none
    assert r > 3 / np.sqrt(batch.n), (r, batch.n)


def _decision(seed: int):
    """A heads-up decision of seat 0 at turn 3, and the learned policy."""
    from nines_sim.engine.position import Position
    from nines_sim.strategy.base import DecisionKind
    from tests.position_seats import PositionSeats

    deck = np.random.default_rng(seed).permutation(52).tolist()
    mine, theirs, top = tuple(deck[:6]), tuple(deck[6:13]), deck[13]
    pos = Position(RULES, (mine, theirs), tuple(deck[14:]), (), top, top // 13, seat=0, dealer=1, turn=3)
    lineup = make_lineup(["learned", "learned"])
    eng = PositionSeats(PositionBatch.from_positions([pos]), lineup)
    idx = np.zeros(1, dtype=np.int64)
    legal = eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    return eng.observe(idx, eng.seat.copy(), DecisionKind.PLAY, legal), lineup[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stop_past_the_turn_cap_values_every_candidate_as_todays_search(seed):
    from nines_sim.search.sampler import sample_positions

    obs, policy = _decision(seed)
    moves = candidates(obs)
    worlds = sample_positions(obs, 32)
    plain = sample_values(obs, worlds.take(np.arange(worlds.n)), moves, policy)
    value = shipped_value(RULES, "learned")
    far = sample_values(obs, worlds.take(np.arange(worlds.n)), moves, policy, leaf=Leaf(value, RULES.turn_cap))
    assert np.array_equal(far, plain, equal_nan=True)
    # the control: cut at the move, the leaves are valued, not played
    near = sample_values(obs, worlds.take(np.arange(worlds.n)), moves, policy, leaf=Leaf(value, 0))
    assert not np.array_equal(near, plain, equal_nan=True)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("lookahead:leaf=learned,policy=dump-faces", "leaf=learned: a value ships for policy=expert or"),
        ("lookahead:leaf=learned,outcome=match", "it needs outcome=hand, not outcome=match"),
        ("lookahead:leaf=deep", "leaf must be one of rollout|learned"),
        ("lookahead:depth=-1", r"depth must lie in 0\.\.500"),
        ("ismcts:leaf=learned,policy=random", "leaf=learned: a value ships for"),
    ],
)
def test_bad_leaf_settings_are_refused_in_one_line(spec, words):
    with pytest.raises(Exception, match=words) as e:
        make_lineup([spec])
    assert "\n" not in str(e.value)


def test_a_bad_leaf_setting_on_the_command_line_is_a_usage_error(tmp_path):
    r = CliRunner().invoke(app, ["tournament", "lookahead:leaf=deep", "expert", "-p", "2", "-n", "2", "--out",
                                 str(tmp_path / "r")], prog_name="nines")  # fmt: skip
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "leaf must be one of" in r.output


def test_no_shipped_value_and_a_damaged_file_are_one_line_errors(tmp_path):
    with pytest.raises(ValueFileError, match="no value ships for classic rules at 3 seats") as e:
        shipped_value(make_rules("classic", players=3), "learned")
    assert "\n" not in str(e.value)
    bad = tmp_path / "v.npz"
    bad.write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(ValueFileError, match="is not a readable value file"):
        load_value(bad)
    with pytest.raises(ValueFileError, match="no such value file"):
        load_value(tmp_path / "none.npz")


def test_settings_that_clash_are_setting_errors_and_usage_errors_on_the_command_line(tmp_path):
    with pytest.raises(SettingError, match="needs outcome=hand, not outcome=near-end"):
        make_lineup(["lookahead:leaf=learned,outcome=near-end"])
    r = CliRunner().invoke(app, ["tournament", "ismcts:leaf=learned,policy=random", "expert", "-p", "2", "-n", "2",
                                 "--out", str(tmp_path / "r")], prog_name="nines")  # fmt: skip
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "a value ships for policy=expert or" in r.output


@pytest.mark.parametrize("seed", [1, 2])
def test_ismcts_with_a_stop_past_the_turn_cap_chooses_as_today(seed):
    from nines_sim.search.ismcts import ismcts
    from nines_sim.search.sampler import sample_positions

    obs, policy = _decision(seed)

    def worlds(sub, k, rows, salt):
        return sample_positions(sub, k, salt)

    far = Leaf(shipped_value(RULES, "learned"), RULES.turn_cap)
    assert np.array_equal(ismcts(obs, worlds, 24, policy, 25.0), ismcts(obs, worlds, 24, policy, 25.0, leaf=far))


@pytest.mark.parametrize(
    "spec", ["lookahead:samples=8,policy=learned,leaf=learned,depth=2", "ismcts:iterations=8,leaf=learned,depth=2"]
)
def test_leaf_values_give_the_same_numbers_for_any_workers_and_batch_size(spec):
    from nines_sim.runs.simulate import simulate

    one = simulate(RULES, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(RULES, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    for other in (two,):
        assert np.array_equal(one.totals, other.totals)
        assert np.array_equal(one.hand_records.penalty, other.hand_records.penalty)


@pytest.mark.parametrize("preset, players", [("classic", 4), ("hard-nines", 5)])
@pytest.mark.parametrize("spec", ["lookahead:samples=4,policy=learned,leaf=learned,depth=3",
                                  "ismcts:iterations=8,leaf=learned,depth=3"])  # fmt: skip
def test_leaf_values_play_legally_at_larger_tables(preset, players, spec):
    from tests.test_properties import run_checked

    rules = make_rules(preset, players=players)
    names = [make_lineup([spec])[0], "random", "hold-nines", "dump-faces", "expert"][:players]
    _, res = run_checked(rules, 2, seed=3, names=names)
    assert len(res.match) == 2 and np.allclose(res.win_share.sum(axis=1), 1.0)


def test_a_value_fitted_for_another_learned_model_warns_with_the_command_to_fit_it_again(tmp_path, monkeypatch):
    import dataclasses

    from nines_sim.learn import value as value_module

    mine = shipped_value(RULES, "learned")
    assert mine.meta["model_digest"]  # the shipped value names the model whose rollouts it predicts
    stale = dataclasses.replace(mine, meta={**mine.meta, "model_digest": "0" * 16})
    stale.save(tmp_path / "classic-2-learned.npz")
    monkeypatch.setattr(value_module, "SHIPPED", tmp_path)
    with pytest.warns(value_module.StaleValueWarning, match="fit it again: python -m nines_sim.learn.value_fit"):
        shipped_value(RULES, "learned")


def test_the_value_of_rows_of_a_state_is_the_value_of_those_rows_taken_out(leaves):
    from nines_sim.learn.value import value_features

    batch, _ = leaves
    value = shipped_value(RULES, "learned")
    s = batch.state
    rows = np.random.default_rng(3).permutation(batch.n)[: batch.n // 2]  # out of order, each once
    seat = (rows % 2).astype(np.int64)
    taken = value_features(s.hands[:, rows], s.ncards[rows], s.drew_on[rows], s.played[rows], s.st[rows], seat,
                           RULES.nine_penalty)  # fmt: skip
    assert np.array_equal(value.of(s, rows, seat), taken @ value.weights)
    # the control: another seat's view of the same rows is another value
    assert not np.array_equal(value.of(s, rows, 1 - seat), taken @ value.weights)
