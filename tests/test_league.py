"""The league: its balanced schedule, Plackett-Luce ratings, byte-identical runs, report section and usage errors."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments.tournament.games import play_games
from nines_sim.experiments.tournament.league import RatedOutcome, ratings_of, write_ratings
from nines_sim.experiments.tournament.schedule import league_schedule
from nines_sim.experiments.tournament.work import plan_tournament, run_plan
from nines_sim.game.rules import make_rules
from nines_sim.results.ratings import (
    ELO_PER_UNIT,
    MATCH_GROUPS,
    choice_events,
    decode,
    finish_codes,
    fit_strengths,
    order_data,
    rate,
    shared_places,
)
from tests.interrupt import built_ins_as_python_seats

runner = CliRunner()
POOL = ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]


# ---------------------------------------------------------------- the schedule


def balance(s: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables per strategy (n,), meetings per pair (n*(n-1)/2,), seat counts (n, P) of a schedule."""
    sat = np.bincount(s.ravel(), minlength=n)
    met = Counter(pair for row in s for pair in combinations(sorted(row.tolist()), 2))
    pairs = np.array([met[p] for p in combinations(range(n), 2)])
    seats = np.zeros((n, s.shape[1]), dtype=np.int64)
    for row in s:
        seats[row, np.arange(len(row))] += 1
    return sat, pairs, seats


@pytest.mark.parametrize("n,players,tables", [(6, 4, 15), (8, 4, 70), (5, 4, 10), (7, 3, 35), (8, 2, 28), (6, 4, 30)])
def test_whole_rounds_are_exactly_balanced(n, players, tables):
    # every set of `players` once per round: each strategy sits C(n-1, P-1) times, each pair meets C(n-2, P-2)
    s = league_schedule(n, players, tables, seed=0)
    rounds = tables // math.comb(n, players)
    sat, pairs, seats = balance(s, n)
    assert (sat == rounds * math.comb(n - 1, players - 1)).all()
    assert (pairs == rounds * math.comb(n - 2, players - 2)).all()
    assert (seats.max(axis=1) - seats.min(axis=1) <= 1).all(), seats
    assert all(len(set(row)) == players for row in s.tolist())  # nobody sits twice at one table


@pytest.mark.parametrize("n,players,tables", [(8, 4, 20), (10, 4, 37), (9, 6, 30), (8, 2, 30), (12, 4, 100)])
def test_other_sizes_seat_everyone_within_one_and_pairs_about_equally(n, players, tables):
    s = league_schedule(n, players, tables, seed=3)
    sat, pairs, seats = balance(s, n)
    assert sat.max() - sat.min() <= 1 and sat.sum() == tables * players
    assert (seats.max(axis=1) - seats.min(axis=1) <= 1).all(), seats
    # pairs cannot all meet equally often here (the schedule evens them out by local search, not exactly):
    # within three meetings of each other, most within one
    assert pairs.max() - pairs.min() <= 3, pairs
    assert (np.abs(pairs - np.median(pairs)) <= 1).mean() >= 0.9, pairs


def test_the_schedule_is_seeded():
    a, b, c = (league_schedule(8, 4, 20, seed=k) for k in (5, 5, 6))
    assert (a == b).all() and not (a == c).all()


# ---------------------------------------------------------------- finishing orders


def test_finishing_places_put_the_winner_first_then_lower_totals_with_ties_sharing():
    totals = np.array([[30, 12, 30, 12], [9, 20, 20, 9]])
    # match 0: seat 3 won the tie-break among the two 12s (S4), seat 1 second, seats 0 and 2 share third
    shares = np.array([[0, 0, 0, 1.0], [0.5, 0, 0, 0.5]])  # match 1: a shared win (tie_rule share)
    places = [decode(c, 4) for c in finish_codes(totals, shares).tolist()]
    assert places == [[2, 1, 2, 0], [0, 2, 2, 0]]
    assert shared_places(places[0]) == [3.5, 2.0, 3.5, 1.0]
    # seats 0 and 3 share first, 1 and 2 share third: 2 x 2 orders of weight 1/2 each within a group
    events = choice_events((10, 11, 12, 13), places[1])
    from_all = {w: c for s, w, c in events if s == (10, 11, 12, 13)}
    assert from_all == {10: 0.5, 13: 0.5}
    assert sum(c for s, _, c in events) == pytest.approx(3.0)  # three choices per order of four


# ---------------------------------------------------------------- ratings of a synthetic population


def simulate(theta: np.ndarray, schedule: np.ndarray, matches: int, seed: int):
    """Plackett-Luce finishing orders drawn from known strengths: sorting strength + Gumbel noise
    gives exactly the PL order.  Returns the games for ``order_data`` and the orders as choix reads them."""
    rng = np.random.default_rng(seed)
    games, orders = [], []
    idx = np.arange(matches)
    for row in schedule:
        score = theta[row][None, :] + rng.gumbel(size=(matches, len(row)))
        totals = np.argsort(np.argsort(-score, axis=1), axis=1)  # place 0 for the best as its "total"
        shares = (totals == 0).astype(np.float64)
        codes = finish_codes(totals, shares)
        games.append((tuple(row.tolist()), dict(Counter(zip((idx % MATCH_GROUPS).tolist(), codes.tolist())))))
        orders += [row[np.argsort(-score[m])].tolist() for m in range(matches)]
    return games, orders


@pytest.fixture(scope="module")
def synthetic():
    theta = np.array([-0.6, -0.3, 0.0, 0.0, 0.35, 0.55])  # strategies 2 and 3 identical
    schedule = league_schedule(6, 4, 15, seed=1)
    games, orders = simulate(theta, schedule, 200, seed=11)
    data = order_data(games, 6)
    return theta, data, orders, rate(data, [f"s{i}" for i in range(6)], seed=0, samples=300)


def test_the_fit_is_the_maximum_likelihood_that_choix_finds(synthetic):
    choix = pytest.importorskip("choix")
    _, data, orders, _ = synthetic
    won, chosen, *_ = data.split(data.features.sum(axis=0))
    ours = fit_strengths(won, chosen, data.members)
    ref = choix.ilsr_rankings(6, orders, tol=1e-12)
    # the ridge (1e-3) moves strengths by about ridge / information, far below 1e-4
    assert np.abs(ours - (ref - ref.mean())).max() < 1e-4


def test_ratings_recover_known_strengths_within_their_bootstrap_error(synthetic):
    theta, _, _, r = synthetic
    df = r.ratings.set_index("strategy").loc[[f"s{i}" for i in range(6)]]
    truth = 1500 + ELO_PER_UNIT * (theta - theta.mean())
    se = (df["rating_high"] - df["rating_low"]).to_numpy() / (2 * 1.96)  # the bootstrap's standard error
    assert (np.abs(df["rating"].to_numpy() - truth) < 3 * se).all(), (df["rating"].to_numpy(), truth, se)
    assert df["rating"].mean() == pytest.approx(1500)
    assert r.ratings["rank"].tolist() == sorted(r.ratings["rank"].tolist())  # best first
    # PL win chance at a table is the strength's share: the model fits its own data
    assert not r.calibration["fails"].any()


def test_identical_strategies_get_overlapping_intervals_and_an_unresolved_difference(synthetic):
    _, _, _, r = synthetic
    df = r.ratings.set_index("strategy")
    a, b = df.loc["s2"], df.loc["s3"]
    assert a.rating_low < b.rating_high and b.rating_low < a.rating_high
    d = r.differences
    pair = d[((d.a == "s2") & (d.b == "s3")) | ((d.a == "s3") & (d.b == "s2"))].iloc[0]
    assert not pair.resolved and pair.low < 0 < pair.high
    strongest = d[(d.a == "s5") & (d.b == "s0")].iloc[0]  # 1.15 log-strength apart: resolved
    assert strongest.resolved and strongest.low > 0


def rock_paper_scissors():
    """Ratings of a rock-paper-scissors population: its calibration fails everywhere."""
    # rock-paper-scissors heads-up: 0 beats 1, 1 beats 2, 2 beats 0, exactly 4 matches in 5; equal strengths fit
    games = []
    for a, b in ((0, 1), (1, 2), (2, 0)):
        first_wins = np.arange(400) % 5 != 0
        codes = np.where(first_wins, 0 + 1 * 2, 1 + 0 * 2)  # places (0, 1) or (1, 0) in base 2
        games.append(((a, b), dict(Counter(zip((np.arange(400) % MATCH_GROUPS).tolist(), codes.tolist())))))
    return rate(order_data(games, 3), ["rock", "paper", "scissors"], seed=0, samples=100)


def test_a_non_transitive_population_fails_calibration():
    r = rock_paper_scissors()
    assert r.calibration["fails"].all()
    assert (r.calibration["predicted"].round(6) == 0.5).all()
    assert not r.differences["resolved"].any()


def test_the_report_says_where_the_model_fails_and_whether_the_misses_follow_the_ratings(tmp_path):
    from nines_sim.experiments.tournament.report_league import ratings_section
    from nines_sim.runs.output import write_csv

    r = rock_paper_scissors()
    for name, df in (("ratings.csv", r.ratings), ("rating_differences.csv", r.differences),
                     ("calibration.csv", r.calibration)):  # fmt: skip
        write_csv(df, tmp_path / name)
    text = "\n".join(ratings_section(tmp_path, {"ratings": {"model": "Bradley-Terry", "bootstrap_samples": 100}}))
    assert "A Bradley-Terry model" in text and "0 of 3 pairs" in text
    assert "**The model fails in 6 of 6 cells**" in text and "(3 of them more)" in text
    assert "The misses do not follow the ratings" in text and "non-transitive" in text
    assert "| rock, paper | rock | 400 | 80.00%" in text


# ---------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def league_plan():
    return plan_tournament("league", POOL, make_rules("classic"), players=4, tables=5, seed=2)


def run_folder(tmp_path, plan, out, name):
    d = tmp_path / name
    d.mkdir()
    write_ratings(d, plan, out, seed=2)
    return {f: (d / f).read_bytes() for f in ("ratings.csv", "rating_differences.csv", "calibration.csv")}


def test_a_league_seats_the_schedule_and_rates_every_strategy(league_plan, tmp_path):
    assert league_plan.format == "league" and len(league_plan.games) == 5
    sat = Counter(s for g in league_plan.games for s in g.lineup)
    assert sorted(sat.values()) == [4, 4, 4, 4, 4]
    out = run_plan(league_plan, 60, seed=2, workers=1, batch_size=64)
    assert isinstance(out, RatedOutcome)
    for g in league_plan.games:
        assert sum(out.orders[g.key].values()) == 60 == out.tallies[g.key].matches
    r = ratings_of(league_plan, out, seed=2)
    assert sorted(r.ratings["strategy"]) == sorted(league_plan.labels)
    assert (r.ratings["matches"] == 240).all()
    # the ratings' win rates are the summary's: the same matches, the same shares
    from nines_sim.experiments.tournament.tables import summary_frame

    s = summary_frame(league_plan, out).set_index("strategy")["win_rate"]
    assert np.allclose(r.ratings.set_index("strategy")["win_rate"].loc[s.index], s)


def test_a_league_is_byte_identical_across_workers_batch_sizes_and_chunks(league_plan, tmp_path):
    one = run_plan(league_plan, 60, seed=2, workers=1, batch_size=64)
    two = run_plan(league_plan, 60, seed=2, workers=2, batch_size=7, chunk=13)
    assert one.orders == two.orders
    assert run_folder(tmp_path, league_plan, one, "w1") == run_folder(tmp_path, league_plan, two, "w2")


def test_rating_a_round_robin_leaves_its_tallies_as_they_were():
    plan = plan_tournament("round-robin", ["random", "hold-nines", "dump-faces"], make_rules("classic"))
    out = run_plan(plan, 40, seed=1, workers=1, batch_size=16)
    games = tuple((g.rules, g.lineup) for g in plan.games)
    plain = play_games(games, 1, 0, 40, 16, False)  # the unrated driver
    for g, (tally, _) in zip(plan.games, plain):
        assert (out.tallies[g.key].wins60 == tally.wins60).all()
        assert (out.tallies[g.key].total_hist == tally.total_hist).all()
    r = ratings_of(plan, out, seed=1)
    assert len(r.differences) == 3 and len(r.calibration) == 6  # three pairings, two cells each


def test_the_cli_league_writes_ratings_and_a_report_section(tmp_path):
    d = tmp_path / "league"
    r = runner.invoke(app, ["tournament", *POOL[:4], "--format", "league", "--players", "3", "--tables", "4",
                            "-n", "50", "--out", str(d), "-w", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Plackett-Luce ratings" in r.output and "differences resolved" in r.output
    # one win rate, two intervals (Wilson over matches; the ratings' bootstrap): each head says which
    heads = [line for line in r.output.splitlines() if "win rate [95% " in line]
    assert "win rate [95% Wilson]" in heads[0] and "win rate [95% bootstrap]" in heads[1], heads
    ratings = pd.read_csv(d / "ratings.csv")
    assert len(ratings) == 4 and (ratings["matches"] == 150).all()  # 4 tables x 3 seats / 4 strategies x 50
    report = (d / "report.md").read_text()
    assert "## Ratings" in report and "### Which differences are resolved" in report
    assert "### Does the rating predict?" in report and "![Ratings](ratings.png)" in report
    assert (d / "ratings.png").is_file()
    import json

    m = json.loads((d / "manifest.json").read_text())
    assert m["format"] == "league" and m["players"] == 3 and m["ratings"]["model"] == "Plackett-Luce"
    assert "--tables 4" in m["command"] and len(m["games"]) == 4


def test_a_tuned_strategy_is_shown_by_its_parameter_file_in_the_ratings_table_and_report(tmp_path):
    import json

    params = {"w_penalty": 1.3688637126139174, "w_follow": 7.387996855950631, "w_block": 6.270573292100337}
    (tmp_path / "tuned.json").write_text(json.dumps({"strategy": "expert", "params": params}))
    d = tmp_path / "league"
    tuned = f"expert@{tmp_path / 'tuned.json'}"
    # no charts: the names are read from the terminal, the CSVs and the report's text (the ratings chart and its
    # link: test_the_cli_league_writes_ratings_and_a_report_section)
    r = runner.invoke(app, ["tournament", "random", "hold-nines", "expert", tuned, "--format", "league",
                            "--players", "3", "-n", "30", "--out", str(d), "-w", "1", "--no-charts"])  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if "expert@tuned.json" in line]
    assert len(rows) == 2, r.output  # the win-rate table and the ratings table
    assert "w_penalty" not in r.output
    named = set(pd.read_csv(d / "ratings.csv")["strategy"])  # the CSVs keep their names, with the values
    assert named == set(pd.read_csv(d / "summary.csv")["strategy"]) and any("w_penalty" in x for x in named)
    section = (d / "report.md").read_text().split("## Ratings", 1)[1].split("## Reproduce", 1)[0]
    assert "expert@tuned.json" in section and "w_penalty" not in section


@pytest.mark.parametrize(
    "args,says",
    [
        (["random", "hold-nines", "dump-faces", "--players", "4"], "a league of 4-seat tables needs at least 4"),
        (["random", "--players", "2"], "a league needs at least two strategies"),
        (["random", "random", "hold-nines", "--players", "2"], "each strategy may be named once in a league"),
        # one table of 4 cannot seat 5: the fifth would be rated without a match
        ([*POOL, "--players", "4", "--tables", "1"], "1 table(s) of 4 cannot seat all 5 strategies; use --tables 2"),
        # seed 0 seats {random, expert} and {dump-faces, hold-nines}: two groups never compared
        (
            ["random", "hold-nines", "dump-faces", "expert", "--players", "2", "--tables", "2"],
            "split the strategies into 2 groups that never sit together",
        ),
        (["random", "hold-nines", "--players", "2", "--tables", "2001"], "a league seats at most 2,000 tables"),
    ],
)
def test_league_usage_errors_are_one_line_with_exit_code_2(args, says, tmp_path):
    r = runner.invoke(app, ["tournament", *args, "--format", "league", "-q", "--out", str(tmp_path / "x")])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], r.output
    assert not (tmp_path / "x").exists()


def test_a_split_league_is_refused_with_the_fewest_tables_that_connect_it():
    from nines_sim.experiments.tournament.plan import TournamentError
    from nines_sim.experiments.tournament.schedule import fewest_connecting_tables, groups_apart

    pool = ["random", "hold-nines", "dump-faces", "expert"]
    assert groups_apart(league_schedule(4, 2, 2, seed=0), 4) == 2
    more = fewest_connecting_tables(4, 2, 2, seed=0)
    assert more is not None and more >= 3  # 4 strategies need 3 heads-up joins
    assert groups_apart(league_schedule(4, 2, more, seed=0), 4) == 1
    assert all(groups_apart(league_schedule(4, 2, t, seed=0), 4) == 2 for t in range(2, more))
    with pytest.raises(TournamentError, match=f"--tables {more} connects them"):
        plan_tournament("league", pool, make_rules("classic"), players=2, tables=2, seed=0)
    plan = plan_tournament("league", pool, make_rules("classic"), players=2, tables=more, seed=0)
    assert len(plan.games) == more


def test_groups_apart_counts_a_strategy_never_seated_as_its_own_group():
    from nines_sim.experiments.tournament.schedule import groups_apart

    assert groups_apart(np.array([[0, 1], [2, 3]]), 5) == 3
    assert groups_apart(np.array([[0, 1, 2], [2, 3, 4]]), 5) == 1


def test_the_help_states_the_most_tables():
    r = runner.invoke(app, ["tournament", "--help"], terminal_width=200)
    assert r.exit_code == 0 and "At most 2,000" in r.output


def test_tables_belongs_to_the_league_only(tmp_path):
    r = runner.invoke(app, ["tournament", "--tables", "3", "-q", "--out", str(tmp_path / "x")])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "--tables applies to --format league only" in lines[0]


def test_a_stopped_chunk_counts_the_finishing_orders_of_exactly_the_matches_it_kept(monkeypatch):
    from nines_sim.experiments.tournament.league import play_rated_games

    # Python seats finish matches out of index order, so a stop keeps a block below the first unfinished one
    built_ins_as_python_seats(monkeypatch)
    rules = make_rules("classic").replace(players=3)
    games = ((rules, ("random", "hold-nines", "dump-faces")),)
    heard = []

    def on_matches(played: int, kept: int) -> None:
        heard.append(kept)

    # stop as soon as the engine reports kept matches: an event, not a time
    [(tally, _, counts)] = play_rated_games(games, 5, 0, 2_000, 64, False, on_matches, lambda: sum(heard) > 0)
    assert 0 < tally.matches < 2_000
    assert sum(counts.values()) == tally.matches
    # the kept matches are the block 0 .. k-1: their groups are the first k match indices mod MATCH_GROUPS
    groups = Counter()
    for (group, _), c in counts.items():
        groups[group] += c
    assert groups == Counter(np.arange(tally.matches) % MATCH_GROUPS)
    # a multi-table chunk stopped part-way is kept whole or not at all
    two = ((rules, ("random", "hold-nines", "dump-faces")), (rules, ("dump-faces", "random", "hold-nines")))
    heard_played = []

    def on_played(played: int, kept: int) -> None:
        heard_played.append(played)

    assert play_rated_games(two, 5, 0, 2_000, 64, False, on_played, lambda: sum(heard_played) > 0) is None


def test_ctrl_c_in_a_league_keeps_whole_chunks_and_rates_exactly_them(tmp_path, monkeypatch):
    from tests.interrupt import ctrl_c_in_process

    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "lg"
    r = runner.invoke(app, ["tournament", *POOL[:4], "--format", "league", "-p", "3", "--tables", "4", "-n", "3000",
                            "--chunk-size", "400", "--workers", "1", "--no-charts", "--out", str(d)])  # fmt: skip
    assert r.exit_code == 130, r.output
    import json

    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and m["kept_ranges"] == [[0, 400]] and "--tables 4" in m["kept_command"]
    assert [g["matches_played"] for g in m["games"]] == [400] * 4
    assert (pd.read_csv(d / "ratings.csv")["matches"] == 1200).all()  # 4 tables x 3 seats x 400 / 4 strategies
    assert "## Ratings" in (d / "report.md").read_text()


def test_two_copies_of_one_strategy_in_a_real_league_get_overlapping_intervals(tmp_path):
    twins = tmp_path / "twins.py"
    twins.write_text(
        "from tests.det_strategies import Lowest\n\n\n"
        "class Twin(Lowest):\n    '''det-lowest under another name.'''\n\n    name = 'det-twin'\n"
    )
    pool = ["random", "dump-faces", "tests/det_strategies.py:Lowest", f"{twins}:Twin"]
    plan = plan_tournament("league", pool, make_rules("classic"), players=3, tables=8, seed=4)
    r = ratings_of(plan, run_plan(plan, 150, seed=4, workers=1), seed=4).ratings.set_index("strategy")
    a, b = r.loc["det-lowest"], r.loc["det-twin"]
    assert a.rating_low < b.rating_high and b.rating_low < a.rating_high, r
    assert r.loc["dump-faces"].rating_low > max(a.rating_high, b.rating_high)  # a real difference is resolved


def test_a_stopped_league_too_small_to_rank_lists_its_ratings_without_ranks_or_claims(tmp_path, monkeypatch):
    from tests.interrupt import ctrl_c_in_process

    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "small"
    r = runner.invoke(app, ["tournament", *POOL[:4], "--format", "league", "-p", "3", "--tables", "4", "-n", "3000",
                            "--chunk-size", "100", "--workers", "1", "--no-charts", "--out", str(d)])  # fmt: skip
    assert r.exit_code == 130, r.output
    import json

    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and m["too_small_to_rank"] and m["kept_ranges"] == [[0, 100]]
    ratings = pd.read_csv(d / "ratings.csv")
    assert ratings["rank"].isna().all() and len(ratings) == 4 and (ratings["matches"] == 300).all()
    assert list(ratings["strategy"]) == POOL[:4]  # lineup order, as summary.csv of such a run
    assert pd.read_csv(d / "rating_differences.csv")["resolved"].isna().all()
    assert pd.read_csv(d / "calibration.csv")["fails"].isna().all()
    section = (d / "report.md").read_text().split("## Ratings", 1)[1].split("## Reproduce", 1)[0]
    assert "None is claimed" in section and "pairs." not in section and "### Does the rating predict?" not in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "Rank" not in line]
    assert len(rows) == 4 and all(row.startswith("| - |") for row in rows)
    assert "differences resolved" not in r.output and "too few matches to rank" in r.output


def test_ctrl_c_during_the_rating_bootstrap_keeps_the_results_without_ratings_and_exits_130(tmp_path, monkeypatch):
    from nines_sim.results import ratings as ratings_module

    fits = []
    real = ratings_module.fit_strengths

    def fit_then_ctrl_c(*args, **kwargs):
        fits.append(1)
        if len(fits) == 3:  # the full fit, one bootstrap sample, then Ctrl-C inside the bootstrap loop
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ratings_module, "fit_strengths", fit_then_ctrl_c)
    d = tmp_path / "lg"
    r = runner.invoke(app, ["tournament", *POOL[:4], "--format", "league", "-p", "3", "--tables", "4", "-n", "50",
                            "--workers", "1", "--no-charts", "--out", str(d)])  # fmt: skip
    assert r.exit_code == 130, r.output
    assert len(fits) == 3  # stopped at once: no further bootstrap sample
    assert "Interrupted (Ctrl-C): the ratings were not computed" in r.output
    import json

    m = json.loads((d / "manifest.json").read_text())
    assert not m["partial"] and m["ratings"]["computed"] is False
    assert [g["matches_played"] for g in m["games"]] == [50] * 4
    assert (pd.read_csv(d / "summary.csv")["matches"] > 0).all()
    assert not any((d / f).exists() for f in ("ratings.csv", "rating_differences.csv", "calibration.csv"))
    assert "Not computed: the run was stopped (Ctrl-C) while rating" in (d / "report.md").read_text()
