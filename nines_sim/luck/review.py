"""One match's luck, hand by hand: each seat's luck by part, and the net luck that sums to zero across seats.

The review's luck and skill split: the value here is the table's fitted one (or any other), the luck in win
shares and, for a fitted value, in penalty points (its first stage: what a hand's cards are worth in points); the
skill side (what each seat's own decisions lost, in the same points) is the review's (:mod:`nines_sim.play.review`),
joined hand by hand in :func:`luck_skill_frame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nines_sim.luck.value import LinearValue


@dataclass(frozen=True)
class MatchLuckReport:
    """A match's luck per hand and seat.

    Attributes
    ----------
    luck : numpy.ndarray
        float64, shape (hands, 3, P): each hand's corrections per part (deal, draw, choice) and seat, in win share.
    net : numpy.ndarray
        float64, shape (hands, P): each hand's luck, all parts, minus the seats' mean: it sums to zero across the
        seats in every hand (what one seat's luck took from the others).
    shares : numpy.ndarray
        float64, shape (P,): the win shares.
    adjusted : numpy.ndarray
        float64, shape (P,): the win shares minus the match's net luck (they sum to what the shares sum to, 1).
    points : numpy.ndarray or None
        float64, shape (hands, 3, P): each hand's luck per part and seat in penalty points in the seat's favour
        (the others' mean hand penalty minus its own, as the review scores a decision), from the value's first
        stage (:attr:`~nines_sim.luck.value.LinearValue.points`); None for a value without one.
    net_points : numpy.ndarray or None
        float64, shape (hands, P): each hand's luck in points, all parts, minus the seats' mean: zero across seats.
    results : numpy.ndarray
        float64, shape (hands, P): each hand's result in the same points, the others' mean hand penalty minus the
        seat's own (S1): it sums to zero across the seats.
    """

    luck: np.ndarray
    net: np.ndarray
    shares: np.ndarray
    adjusted: np.ndarray
    points: np.ndarray | None
    net_points: np.ndarray | None
    results: np.ndarray


def match_luck(rules, lineup: Sequence[str], seed: int, match: int, value: LinearValue) -> MatchLuckReport:  # noqa: ANN001
    """Replay match ``match`` of ``seed`` and measure its luck hand by hand under ``value``.

    Net luck subtracts the seats' mean from each seat's luck: a value ``V_p - mean_q V_q + 1/P``, which is still a
    value (the adjusted shares stay unbiased), and whose shares always sum to 1, as win shares do.

    Parameters
    ----------
    rules : nines_sim.game.rules.Rules
    lineup : sequence of str
        Strategy specs, seat by seat.
    seed, match : int
    value : LinearValue

    Returns
    -------
    MatchLuckReport
    """
    from nines_sim.engine.seats import seat_ids
    from nines_sim.luck.walk import Walker
    from nines_sim.play.replay import replay
    from nines_sim.strategy.registry import make_lineup

    events, _ = replay(rules, list(lineup), seed, match, choices=True)  # expert's sets: its tie-breaks corrected
    walker = Walker(rules, seat_ids(make_lineup(list(lineup))))
    walker.per_hand = []
    walked = walker.walk(events)
    luck = value.corrections(np.array(walker.per_hand))
    total = luck.sum(axis=1)
    net = total - total.mean(axis=1, keepdims=True)
    pen = walked.hand_penalties.astype(np.float64)
    P = pen.shape[1]
    results = (pen.sum(axis=1, keepdims=True) - pen) / max(P - 1, 1) - pen
    points = net_points = None
    if value.points is not None:  # the stage's value is own penalty minus the others' mean: its luck, negated
        points = -np.einsum("hkpj,kpj->hkp", walked.hand_blocks, value.points)
        whole = points.sum(axis=1)
        net_points = whole - whole.mean(axis=1, keepdims=True)
    return MatchLuckReport(luck, net, walked.shares, walked.shares - net.sum(axis=0), points, net_points, results)


def luck_skill_frame(report: MatchLuckReport, decisions: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The luck and skill table of one match: per hand and seat, then per seat for the match (``hand`` 0).

    Parameters
    ----------
    report : MatchLuckReport
        Of a value with points (:func:`match_luck` under a fitted value).
    decisions : pandas.DataFrame
        The review's rows of this match (:data:`nines_sim.play.review.COLUMNS`: ``hand`` from 1, ``seat``,
        ``points_lost``); seats not reviewed have no skill (NaN).
    labels : sequence of str
        Each seat's name.

    Returns
    -------
    pandas.DataFrame
        Columns ``hand, seat, strategy, result, luck_deal, luck_draw, luck_choice, luck, skill, unexplained``, in
        penalty points in the seat's favour: ``luck`` the net luck (zero across the seats in every hand),
        ``skill`` minus the points its decisions lost, ``unexplained`` the result less both.

    Raises
    ------
    ValueError
        For a value without points.
    """
    if report.points is None or report.net_points is None:
        raise ValueError("the luck in points needs a fitted value (LinearValue.points)")
    hands, P = report.results.shape
    reviewed = set(decisions["seat"].tolist())
    lost = decisions.groupby(["hand", "seat"])["points_lost"].sum()
    rows = []
    for h in range(hands):
        for p in range(P):
            mean_parts = report.points[h].mean(axis=1)  # each part's net: minus the seats' mean of that part
            parts = report.points[h, :, p] - mean_parts
            skill = -float(lost.get((h + 1, p), 0.0)) if p in reviewed else float("nan")
            rows.append({"hand": h + 1, "seat": p, "strategy": labels[p], "result": report.results[h, p],
                         "luck_deal": parts[0], "luck_draw": parts[1], "luck_choice": parts[2],
                         "luck": report.net_points[h, p], "skill": skill})  # fmt: skip
    frame = pd.DataFrame(rows)
    match = frame.groupby(["seat", "strategy"], as_index=False)[["result", "luck_deal", "luck_draw", "luck_choice",
                                                                  "luck", "skill"]].sum(min_count=1)  # fmt: skip
    match.insert(0, "hand", 0)
    out = pd.concat([frame, match], ignore_index=True)
    out["unexplained"] = out["result"] - out["luck"] - out["skill"].fillna(0.0)
    return out


def luck_sentence(table: pd.DataFrame, seat: int) -> str:
    """What the match's luck did to ``seat``, in words: ``"seat 0 (expert) lost by 18.0 points a hand on
    average against the others' mean...; the cards cost it 14.0 of them"``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`luck_skill_frame`'s.
    seat : int
    """
    row = table[(table["hand"] == 0) & (table["seat"] == seat)].iloc[0]
    result, luck = float(row["result"]), float(row["luck"])
    won = "gained" if result >= 0 else "lost"
    cards = f"the cards gave it {luck:.1f}" if luck >= 0 else f"the cards cost it {-luck:.1f}"
    skill = "" if np.isnan(row["skill"]) else f", its decisions {-float(row['skill']):.1f} (points lost)"
    return (f"seat {seat} ({row['strategy']}) {won} {abs(result):.1f} points against the others' mean over the "
            f"match's hands; {cards} of them{skill}")  # fmt: skip


def review_luck(review, fit_matches: int = 4000, workers: int = 1) -> pd.DataFrame:  # noqa: ANN001 - Review
    """A strategy review's luck and skill table: every reviewed match's :func:`luck_skill_frame`, with a
    ``match`` column, under a value fitted on ``fit_matches`` reserved matches of the review's table and seed.

    Parameters
    ----------
    review : nines_sim.play.review.Review
        A strategy review (its lineup, rules, seed and kept match ranges; a saved match has no seat to replay).
    fit_matches : int
        Reserved matches the value is fitted on (:data:`~nines_sim.luck.measure.FIT_START` on).
    workers : int
        Worker processes of the fit (the numbers are identical for any value).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        For a review of a saved match.
    """
    from nines_sim.luck.measure import fit_reserved

    if review.source is not None:
        raise ValueError("--luck reviews a strategy: a saved match's seats cannot be replayed without the person")
    value = fit_reserved(review.rules, review.lineup, review.seed, fit_matches, workers)
    frames = []
    decisions = review.decisions
    for lo, hi in review.kept or review.ranges:
        for m in range(lo, hi):
            report = match_luck(review.rules, review.lineup, review.seed, m, value)
            table = luck_skill_frame(report, decisions[decisions["match"] == m], review.lineup)
            table.insert(0, "match", m)
            frames.append(table)
    return pd.concat(frames, ignore_index=True)


def review_luck_lines(table: pd.DataFrame) -> list[str]:
    """What the terminal says of a review's luck: seat 0's result, luck and skill summed over the matches."""
    whole = table[table["hand"] == 0]
    seat = whole[whole["seat"] == 0]
    n = len(seat)
    res, luck, skill = (float(seat[c].sum()) for c in ("result", "luck", "skill"))
    return [f"\nluck and skill of seat 0 ({seat['strategy'].iloc[0]}) over {n:,} matches, in penalty points against "
            f"the others' mean: result {res:+.1f}, luck (deal, draws, others' random choices) {luck:+.1f}, skill "
            f"(points its decisions lost) {skill:+.1f}, the rest {res - luck - skill:+.1f}",
            f"  one match: {luck_sentence(table[table['match'] == table['match'].iloc[0]], 0)}"]  # fmt: skip
