"""The luck measure (AIVAT, nines_sim.luck): exact expectations, zero-mean corrections, plain numbers kept."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK, face
from nines_sim.game.rules import make_rules
from nines_sim.luck.estimate import adjusted_rates
from nines_sim.luck.features import COL_ACTIVE, N_FEATURES, NB, NJ, NJ0, card_blocks, card_matrix
from nines_sim.luck.measure import measure_luck
from nines_sim.luck.value import LinearValue, constant_value, fit_value, noise_value
from nines_sim.luck.walk import PARTS, LuckError, Walker
from nines_sim.strategy.registry import make_lineup

#: A tolerance in standard errors for the zero-mean checks: each fails by chance about once in 2,000 runs.
Z_TOL = 3.5


def _walker_at(rules, seat_ids_, hands, top, active, stock):
    w = Walker(rules, seat_ids_)
    w.H, w.top, w.active = np.array(hands, dtype=float), top, active
    w.stock, w.pile, w.first = np.array(stock, dtype=float), np.zeros(N_FACES), 0
    w.acc = np.zeros((3, rules.players, NJ))
    return w


def test_T4_draw_expectation_matches_enumeration():
    """A draw's correction in card blocks is the blocks after the card drawn minus their mean over every card of
    the stock, enumerated one by one in plain Python (T4: the card uniform over the stock)."""
    rules = make_rules("classic").replace(players=3)
    gen = np.random.default_rng(7)
    perm = [int(f) for f in gen.permutation(N_FACES)]
    hands = np.zeros((3, N_FACES))
    for p in range(3):
        hands[p, perm[7 * p : 7 * p + 5]] = 1
    top = perm[30]
    stock = np.zeros(N_FACES)
    stock[perm[31:]] = 1
    seat, drawn = 1, perm[40]
    w = _walker_at(rules, [1, 3, 5], hands, top, int(FACE_SUIT[top]), stock)
    w._draw(seat, drawn)

    def blocks_after(card):
        h = hands.copy()
        h[seat, card] += 1
        return card_blocks(h @ card_matrix(int(FACE_SUIT[top]), top), seat, -1)

    cards = [f for f in range(N_FACES) if stock[f] > 0]
    mean = sum(blocks_after(f) for f in cards) / len(cards)
    np.testing.assert_allclose(w.acc[1], blocks_after(drawn) - mean, atol=1e-12)
    assert w.stock[drawn] == 0 and w.H[seat, drawn] == 1


def test_D4_D5_hand_built_deal_gives_the_luck_computed_by_hand():
    """Heads-up, seat 0 dealt all four 9s: with a value of one point per 9 held, its deal's luck is 4 minus the
    9s a 7-card hand holds on average, 7 * 4 / 52 (D4, D5: the hands uniform over the deck, the starter too)."""
    rules = make_rules("classic").replace(players=2)
    nines = [face(NINE_RANK, s) for s in range(4)]
    hand0 = (*nines, face(0, 0), face(1, 0), face(2, 0))
    hand1 = tuple(face(r, 1) for r in range(7))
    starter = face(12, 2)
    events = [("deal", 0, 1, (hand0, hand1), starter), ("turn", 0), ("end", 0, (0, 5)), ("match_end", (0, 5), (1, 0))]
    luck = Walker(rules, [5, 5]).walk(events)
    weights = np.zeros((2, N_FEATURES))
    weights[0, NINE_RANK] = 1.0  # match weight 1 (column 0), own cards of rank 9
    value = LinearValue(weights, "9s held")
    correction = value.corrections(luck.parts[None])[0]
    assert correction[0, 0] == pytest.approx(4 - 7 * 4 / 52, abs=1e-12)
    assert correction[1:, 0] == pytest.approx([0.0, 0.0])  # no draw, no choice
    np.testing.assert_array_equal(luck.shares, [1.0, 0.0])


def test_D4_D5_a_deal_scaled_by_the_hand_s_phase_gives_the_luck_computed_by_hand():
    """The same deal, with a value of one point per 9 held times the phase's 1 / (1 + the smallest other hand):
    the other hand holds 7 cards after the deal whatever they are (D4), so the deal's luck is (4 - 7 * 4 / 52) / 8;
    and times 1 / (1 + its own hand), the same over 8 too."""
    rules = make_rules("classic").replace(players=2)
    nines = [face(NINE_RANK, s) for s in range(4)]
    hand0 = (*nines, face(0, 0), face(1, 0), face(2, 0))
    hand1 = tuple(face(r, 1) for r in range(7))
    events = [("deal", 0, 1, (hand0, hand1), face(12, 2)), ("turn", 0), ("end", 0, (0, 5)),
              ("match_end", (0, 5), (1, 0))]  # fmt: skip
    luck = Walker(rules, [5, 5]).walk(events)
    for q in (1, 2):  # the phase functions: 1 / (1 + own size), 1 / (1 + the smallest other hand)
        weights = np.zeros((2, N_FEATURES))
        weights[0, q * NJ0 + NINE_RANK] = 1.0
        correction = LinearValue(weights, "9s held in phase").corrections(luck.parts[None])[0]
        assert correction[0, 0] == pytest.approx((4 - 7 * 4 / 52) / 8, abs=1e-12)


def test_constant_value_gives_exactly_the_plain_numbers():
    """A constant V: every correction 0, the adjusted rate equal to the plain one bit for bit, and the traced
    matches' shares equal to a plain run's (the luck measure plays the very matches a run plays)."""
    rules = make_rules("classic").replace(players=3)
    specs = ["random", "dump-faces", "expert"]
    luck = measure_luck(rules, specs, 3, 0, 200, value=constant_value(3))
    assert not luck.corrections.any()
    plain = CompiledEngine(rules, make_lineup(specs), 3, 0, 200, batch_size=64).run()
    np.testing.assert_array_equal(luck.shares, np.asarray(plain.win_share))
    for p, a in enumerate(adjusted_rates(luck.shares, luck.corrections)):
        assert a.adjusted == a.win_rate == luck.shares[:, p].mean()
        assert a.variance_ratio == 1.0 and a.correction_mean == 0.0


@pytest.mark.parametrize(
    ("preset", "specs"),
    [
        ("classic", ["random", "dump-faces"]),
        ("hard-nines", ["expert", "dump-faces", "random"]),
        ("free-nines", ["suit-majority", "hold-nines", "random", "expert"]),
        ("skip-reverse", ["random", "hold-nines", "suit-majority"]),
        ("draw-until-playable", ["random", "expert"]),
        ("double-nines", ["random", "random", "dump-faces", "hold-nines", "suit-majority"]),
        ("no-nine-out+no-stacking", ["random", "suit-majority", "dump-faces", "hold-nines", "expert", "random"]),
    ],
)
def test_corrections_have_zero_mean_per_seat(preset, specs):
    """Under a deliberately useless (noise) value, each seat's corrections, per part (deal, draw, choice), have
    mean zero within Z_TOL standard errors (every move also one of its policy's choices, or the walk raises)."""
    rules = make_rules(preset).replace(players=len(specs))
    n = 240
    luck = measure_luck(rules, specs, 11, 0, n, value=noise_value(len(specs), 1))
    c = luck.corrections
    for k, part in enumerate(PARTS):
        se = c[:, k, :].std(axis=0, ddof=1) / np.sqrt(n)
        mean = c[:, k, :].mean(axis=0)
        for p in range(len(specs)):
            if se[p] > 0:
                assert abs(mean[p]) < Z_TOL * se[p], (part, p, mean[p], se[p])
    for a in adjusted_rates(luck.shares, c):  # plain and adjusted agree within their intervals
        assert a.adjusted_ci[0] - 0.1 < a.win_rate < a.adjusted_ci[1] + 0.1


def test_random_and_expert_choices_are_corrected():
    """``random``'s uniform choices give choice corrections, and so do ``expert``'s tie-breaks (a table of
    ``expert`` seats alone: before, none, its ties left in the luck)."""
    rules = make_rules("classic").replace(players=2)
    rnd = measure_luck(rules, ["random", "random"], 0, 0, 20)
    exp = measure_luck(rules, ["expert", "expert"], 0, 0, 20)
    assert np.abs(rnd.parts[:, 2]).sum() > 0
    assert np.abs(exp.parts[:, 2]).sum() > 0
    assert np.abs(exp.parts[:, 0]).sum() > 0 and np.abs(exp.parts[:, 1]).sum() > 0


def test_T1_expert_s_tie_break_gives_the_luck_computed_by_hand():
    """Heads-up, ``expert`` (seat 0) holds KH KS 2H 2S 4C 5C 6C on the KD starter: KH and KS score the same (the
    same penalty, as many of each suit left, no threat), so it plays either, uniformly (both seen over 200
    decision streams).  The other hand holds three hearts and one spade: under a value of one point per natural of
    the active suit in the others' hands, KH is worth 3 to seat 0, KS 1, their mean 2, so the tie-break's luck is
    +1 when it plays KH, -1 for KS; seat 1's own naturals of the active suit the same; nothing else is corrected."""
    from nines_sim.game.cards import parse_card
    from nines_sim.strategies.expert import Expert
    from tests.position_seats import first_decisions, stacked
    from tests.test_strategies import Recorder

    mine, theirs = "KH KS 2H 2S 4C 5C 6C", "3H 4H 5H 7S 8C 10C JC"
    rules = make_rules("classic").replace(players=2)
    rec = Recorder(make_lineup(["expert"])[0])
    plays, _ = first_decisions(stacked(rules, [rec, *make_lineup(["random"])], {0: mine, 1: theirs}, top="KD",
                                       copies=200))  # fmt: skip
    kh, ks = parse_card("KH"), parse_card("KS")
    assert set(plays.tolist()) == {kh, ks}
    weights = np.zeros((2, N_FEATURES))
    weights[0, NB + COL_ACTIVE] = 1.0  # the others' naturals of the active suit (match weight 1, phase 1)
    weights[1, COL_ACTIVE] = 1.0  # its own
    value = LinearValue(weights, "the active suit's naturals")
    hands = tuple(tuple(parse_card(c) for c in h.split()) for h in (mine, theirs))
    for played, luck in ((kh, 1.0), (ks, -1.0)):
        events = [("deal", 0, 1, hands, parse_card("KD")), ("turn", 0), ("choice", 0, 1, (1 << kh) | (1 << ks), 0, 0),
                  ("play", 0, played, -1), ("end", 0, (0, 5)), ("match_end", (0, 5), (1, 0))]  # fmt: skip
        walked = Walker(rules, [Expert.kernel_id, 5]).walk(events)
        correction = value.corrections(walked.parts[None])[0]
        assert correction[2] == pytest.approx([luck, luck], abs=1e-12)
        assert correction[1] == pytest.approx([0.0, 0.0])  # no draw


def test_expert_s_play_is_a_tie_break_then_a_nine_for_the_suits_a_nine_replaces():
    """``expert``'s logged sets as a distribution: two tied naturals, a 9 replacing the one whose suit blocks no
    one, two legal 9s: the other natural 1/2, each 9 1/4; with no tied natural, the 9s uniformly."""
    from nines_sim.game.cards import parse_card
    from nines_sim.luck.walk import SID_EXPERT

    w = Walker(make_rules("classic").replace(players=2), [SID_EXPERT, 5])
    kh, ks, nine_c, nine_d = (parse_card(c) for c in ("KH", "KS", "9C", "9D"))
    nines = (1 << nine_c) | (1 << nine_d)
    w.pending = {"play": (0, (1 << kh) | (1 << ks), nines, 1 << 3)}  # spades (suit 3): a 9 instead
    moves, probs = w._expert_choices(0)
    assert dict(zip(moves, probs.tolist(), strict=True)) == {kh: 0.5, nine_c: 0.25, nine_d: 0.25}
    w.pending = {"play": (0, 0, nines, 15)}
    moves, probs = w._expert_choices(0)
    assert dict(zip(moves, probs.tolist(), strict=True)) == {nine_c: 0.5, nine_d: 0.5}
    with pytest.raises(LuckError, match="no play choice logged"):
        w._expert_choices(0)


@pytest.mark.parametrize("players", [2, 5])
def test_expert_s_tie_break_corrections_have_zero_mean_per_seat(players):
    """A table of ``expert`` seats alone, whose only random decisions are its tie-breaks: under a noise value, each
    seat's choice corrections have mean zero within Z_TOL standard errors, and are not all zero."""
    rules = make_rules("classic").replace(players=players)
    n = 400
    c = measure_luck(rules, ["expert"] * players, 13, 0, n, value=noise_value(players, 4)).corrections[:, 2]
    se = c.std(axis=0, ddof=1) / np.sqrt(n)
    assert (se > 0).all()
    for p in range(players):
        assert abs(c[:, p].mean()) < Z_TOL * se[p], (p, c[:, p].mean(), se[p])


def test_luck_is_identical_for_any_workers():
    """The luck of a range of matches is byte-identical for 1 and 2 worker processes."""
    rules = make_rules("classic").replace(players=2)
    value = noise_value(2, 3)
    one = measure_luck(rules, ["random", "expert"], 5, 100, 700, value=value, workers=1)
    two = measure_luck(rules, ["random", "expert"], 5, 100, 700, value=value, workers=2)
    assert one.corrections.tobytes() == two.corrections.tobytes()
    assert one.shares.tobytes() == two.shares.tobytes()


def test_features_are_linear_in_the_hands_of_given_sizes():
    """The card blocks at a fixed top and active suit are linear in the hands of given sizes: the mean over hands
    of the blocks is the blocks of the mean hand (what makes the draw's and the deal's expectations exact: the
    sizes after an event, which scale the blocks by the hand's phase, are known before it)."""
    gen = np.random.default_rng(2)
    sizes = (5, 3, 7)
    hands = np.zeros((6, 3, N_FACES))
    for h in hands:
        for p, n in enumerate(sizes):
            h[p, gen.choice(N_FACES, size=n, replace=False)] = 1.0
    m = card_matrix(2, face(5, 1))
    blocks = [card_blocks(h @ m, 1, 0) for h in hands]
    np.testing.assert_allclose(np.mean(blocks, axis=0), card_blocks(hands.mean(axis=0) @ m, 1, 0), atol=1e-12)
    mixed = hands.copy()
    mixed[0, 0] = 0.0  # a hand of another size: not on the same line
    assert not np.allclose(np.mean([card_blocks(h @ m, 1, 0) for h in mixed], axis=0),
                           card_blocks(mixed.mean(axis=0) @ m, 1, 0), atol=1e-12)  # fmt: skip
    assert m.shape == (N_FACES, NB)
    assert (m[:, :13].sum(axis=1) == 1).all() and m[FACE_RANK == NINE_RANK, 13:].sum() == 0


def _tournament(tmp_path, name, *extra):
    from typer.testing import CliRunner

    from nines_sim.cli import app

    out = tmp_path / name
    args = ["tournament", "random", "dump-faces", "-n", "600", "--seed", "4", "--quiet", "--no-charts"]
    result = CliRunner().invoke(app, [*args, "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out, result.output


@pytest.fixture(scope="module")
def luck_runs(tmp_path_factory):
    """A plain run and a ``--luck`` run of the same 600 matches (one worker, matches.csv.gz saved in both), each
    engine the luck run makes counted: the folders, the luck run's output, and per engine of the run's matches (not
    the reserved ones the value is fitted on) whether it traced and how many matches it played."""
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.luck.measure import FIT_START

    folder = tmp_path_factory.mktemp("luck")
    played = []
    init = CompiledEngine.__init__

    def counted(self, rules, lineup, seed, start, n_matches, *args, **kwargs):
        init(self, rules, lineup, seed, start, n_matches, *args, **kwargs)
        if start < FIT_START:
            played.append((self.trace is not None, n_matches))

    plain, _ = _tournament(folder, "plain", "--workers", "1", "--save-matches")
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(CompiledEngine, "__init__", counted)
        luck, said = _tournament(folder, "luck", "--workers", "1", "--save-matches", "--luck", "--luck-fit", "300")
    return plain, luck, said, played


def test_tournament_luck_keeps_the_plain_columns_and_is_identical_for_any_workers(luck_runs, tmp_path):
    """``--luck`` adds five columns to summary.csv and leaves the plain ones byte for byte; its numbers are the same
    for 1 and 2 workers and any batch size; the report prints the check, the manifest the reserved matches.  The
    one-worker runs are the module's (with --save-matches); the two-worker run, without it, checks that the luck
    tables do not depend on it either."""
    import json

    import pandas as pd

    plain, one, said, _ = luck_runs
    two, _ = _tournament(tmp_path, "two", "--workers", "2", "--batch-size", "77", "--luck", "--luck-fit", "300")
    for name in ("summary.csv", "luck.csv"):
        assert (one / name).read_bytes() == (two / name).read_bytes()
    for name in ("hands.csv", "pairwise.csv", "score_distribution.csv", "seat_go_out.csv"):
        assert (one / name).read_bytes() == (plain / name).read_bytes()
    with_luck = pd.read_csv(one / "summary.csv")
    added = ["adjusted_win_rate", "adjusted_ci_low", "adjusted_ci_high", "variance_ratio", "luck_z"]
    assert list(with_luck.columns[-5:]) == added
    kept = [",".join(line.split(",")[:-5]) for line in (one / "summary.csv").read_text().splitlines()]
    assert kept == (plain / "summary.csv").read_text().splitlines()
    assert not (plain / "luck.csv").exists()
    fit = json.loads((one / "manifest.json").read_text())["luck"]["fit_matches"]
    assert fit["start"] >= 10**10  # reserved: beyond any run's matches
    assert "Unbiasedness check" in (one / "report.md").read_text()
    assert "## Luck taken out" in (one / "report.md").read_text()
    assert "Luck taken out" not in said  # --quiet: no table on screen (before, the luck's was printed)
    assert "--luck" in json.loads((one / "manifest.json").read_text())["command"]


def test_tournament_luck_plays_each_match_once_and_keeps_every_plain_table(luck_runs):
    """``--luck`` plays the run's matches once, in the trace form, each match's luck walked as it is played (before,
    every match was played plain, then traced again for its luck); every table the plain run writes, matches.csv.gz
    too, is the plain run's byte for byte."""
    import gzip

    plain, luck, _, played = luck_runs
    assert played and all(traced for traced, _ in played)  # no plain engine
    assert sum(n for _, n in played) == 600  # each match once
    for name in ("hands.csv", "pairwise.csv", "score_distribution.csv", "seat_go_out.csv"):
        assert (luck / name).read_bytes() == (plain / name).read_bytes()
    assert gzip.decompress((luck / "matches.csv.gz").read_bytes()) == gzip.decompress(
        (plain / "matches.csv.gz").read_bytes()
    )


def test_tournament_luck_on_two_workers_loads_no_plain_form(tmp_path, monkeypatch):
    """With worker processes, a ``--luck`` run's parent makes no plain engine: its chunks play the trace form and the
    walk, which its fit loaded before the workers forked (before, the pool's warm-up played a match of the plain form
    first: half a second from the cache, a compile of tens of seconds from an empty one)."""
    from nines_sim.engine.batch import CompiledEngine

    made = []
    init = CompiledEngine.__init__

    def counted(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self.trace is not None)

    monkeypatch.setattr(CompiledEngine, "__init__", counted)
    _tournament(tmp_path, "two", "--workers", "2", "--chunk-size", "300", "--luck", "--luck-fit", "300")
    assert made and all(made)  # here: the fit's first chunk, traced; the run's chunks in the workers


def test_tournament_luck_refuses_another_format_in_one_line():
    from typer.testing import CliRunner

    from nines_sim.cli import app

    result = CliRunner().invoke(app, ["tournament", "random", "expert", "--format", "round-robin", "--luck", "-n", "5"])
    assert result.exit_code == 2
    assert "--luck applies to --format table" in result.output


def test_tournament_luck_refuses_a_player_that_sees_the_stock():
    from typer.testing import CliRunner

    from nines_sim.cli import app

    result = CliRunner().invoke(app, ["tournament", "clairvoyant", "expert", "--luck", "-n", "5"])
    assert result.exit_code == 2
    assert "--luck cannot adjust a table with clairvoyant" in result.output


@pytest.mark.parametrize("players", [2, 3, 5])
def test_review_net_luck_sums_to_zero_across_seats_in_every_hand(players):
    """A match's net luck sums to zero across the seats in every hand, its hands add up to the match's
    corrections, and the adjusted shares still sum to 1."""
    from nines_sim.luck.review import match_luck

    specs = ["random", "dump-faces", "expert", "hold-nines", "suit-majority"][:players]
    rules = make_rules("classic").replace(players=players)
    value = noise_value(players, 5)
    report = match_luck(rules, specs, 2, 7, value)
    assert report.net.shape[0] >= 1
    np.testing.assert_allclose(report.net.sum(axis=1), 0.0, atol=1e-12)
    whole = measure_luck(rules, specs, 2, 7, 1, value=value).corrections[0]
    np.testing.assert_allclose(report.luck.sum(axis=0), whole, atol=1e-12)
    assert report.adjusted.sum() == pytest.approx(1.0, abs=1e-12)


def test_a_fit_from_the_hands_alone_is_the_fit_from_the_parts():
    """The reserved matches walked for their hands only (``keep_parts=False``, what ``--luck`` fits on) give the
    value fitted on their parts, to rounding: each match's luck summed from its hands' match weights and blocks
    (over several chunks and two workers) is the parts' sum in another order; the first stage, from the hands in
    both, to the bit."""
    rules = make_rules("skip-reverse").replace(players=3)
    specs = ["random", "expert", "dump-faces"]
    full = measure_luck(rules, specs, 6, 50, 1100, workers=2)
    hands = measure_luck(rules, specs, 6, 50, 1100, workers=2, keep_parts=False)
    assert hands.parts is None and hands.hand_match[0] == 0 and hands.hand_match[-1] == 1099
    a = fit_value(full.parts, full.shares, full.hand_blocks, full.hand_penalties)
    b = fit_value(None, hands.shares, hands.hand_blocks, hands.hand_penalties, hand_match=hands.hand_match,
                  hand_weights=hands.hand_weights)  # fmt: skip
    np.testing.assert_allclose(b.weights, a.weights, rtol=0, atol=1e-12)
    assert a.points.tobytes() == b.points.tobytes() and np.abs(a.weights).max() > 0.1


def test_tournament_luck_stopped_says_why_there_is_no_luck_table(tmp_path, monkeypatch):
    """Ctrl-C before every match was played: the screen, report.md and the manifest say why there is no luck.csv
    (before: nothing said), and the kept_command has no --luck (with its --ranges it was refused)."""
    import json

    from typer.testing import CliRunner

    from nines_sim.cli import app
    from tests.interrupt import ctrl_c_in_process

    out = tmp_path / "run"
    args = ["tournament", "expert", "dump-faces", "-n", "3000", "--chunk-size", "500", "--workers", "1",
            "--no-charts", "--luck", "--out", str(out)]  # fmt: skip
    with monkeypatch.context() as patched:
        ctrl_c_in_process(patched, lambda played, kept: kept > 0)
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    assert "Luck not taken out: the run was stopped (Ctrl-C) before every match was played" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["luck"]["computed"] is False and "--luck" not in manifest["kept_command"]
    assert "Not measured: the run was stopped (Ctrl-C)" in (out / "report.md").read_text()
    again = CliRunner().invoke(app, manifest["kept_command"].split()[1:] + ["--out", str(tmp_path / "kept"), "-q"])
    assert again.exit_code == 0, again.output


def test_adjusted_intervals_stay_within_what_they_estimate():
    """A run of a few matches: the adjusted win rate's normal interval is cut to [0, 1] (a win rate lies there, so
    the cut interval holds it whenever the normal one does; ``--luck -n 2`` gave [-0.4800, 1.4800]), and a paired
    shift's to [-1, 1]; the estimates themselves unchanged, and an interval within the range as it was."""
    from nines_sim.luck.compare import paired_shifts
    from nines_sim.luck.estimate import Z95, adjusted_rates

    shares = np.array([[0.0, 1.0], [1.0, 0.0]])
    corrections = np.array([[0.02, -0.02], [-0.05, 0.05]])
    seats = adjusted_rates(shares, corrections)
    assert [s.adjusted_ci for s in seats] == [(0.0, 1.0), (0.0, 1.0)]
    assert seats[0].adjusted == pytest.approx(0.515) and seats[1].adjusted == pytest.approx(0.485)
    shift = paired_shifts([shares, shares[::-1]], [corrections, corrections[::-1]])[0].estimate
    assert shift.adjusted_ci == (-1.0, 1.0)
    gen = np.random.default_rng(5)
    many = gen.integers(0, 2, size=(400, 1)).astype(np.float64)
    small = gen.normal(0, 0.05, size=(400, 1))
    one = adjusted_rates(many, small)[0]
    se = (many[:, 0] - small[:, 0]).std(ddof=1) / np.sqrt(400)
    assert one.adjusted_ci == (one.adjusted - Z95 * se, one.adjusted + Z95 * se)
