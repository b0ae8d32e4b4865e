"""What the luck value's card block columns are worth (issue 41's cost): the two-stage fit on column subsets.

For one table (``heads-up``, ``five`` or ``compare``), the reserved matches (2^61 .., 4,000) and the run's matches
(0 .., luck.md's tables) are traced and walked once, keeping each hand's card block differences
(``measure_luck(..., keep_parts=False)``, 500 matches at a time).  Stage 1's sums (``value.Moments``, per chunk of
500 in match order, as ``measure.fit_reserved`` gathers them) are taken once for all 99 columns; a subset's stage 1
is the ridge on their sub-block (the same as fitting on the subset's own moments), zero elsewhere; stage 2 as the
shipped fit (``value.least_squares`` of the win share on the match's stage-1 luck by the match weights).  A run
match's corrections under each subset's value are its hands' blocks times stage 1 times the match weights times
stage 2 (``value.match_luck``): the value's corrections, as the walk gives them, to rounding.  The all-99 subset
is the shipped value to the bit, so its ratios are luck.md's.

Also kept, per subset: stage 1's share of the target's variance (a hand's penalty against the others' mean) on the
run's hands, out of sample (from the run's own moments).

    nice -n 5 python reports/luck-columns/columns.py heads-up   # 20,000 matches, `expert` vs `dump-faces`
    nice -n 5 python reports/luck-columns/columns.py five       # 10,000 matches, the default 5 seats
    nice -n 5 python reports/luck-columns/columns.py compare    # 20,000 paired matches, classic vs Hard Nines

Writes ``ratios-<table>.csv`` beside this file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from nines_sim.game.rules import make_rules
from nines_sim.luck.compare import paired_shifts
from nines_sim.luck.estimate import adjusted_rates, variance_ratio
from nines_sim.luck.features import NB, NJ, NJ0, NQ
from nines_sim.luck.measure import CHUNK, FIT_START, measure_luck
from nines_sim.luck.value import RIDGE_ALPHA, Moments, least_squares, match_luck

HERE = Path(__file__).parent
FIT = 4000
SEED = 0

# the 33 columns of a card block before the phase (features.card_blocks): own ranks 0-12, own naturals of the
# active suit 13 and of the top card's rank 14; the others' sums 15-29 likewise; the mover's legal count (for the
# mover 30, for the others 31); first 32
RANKS = list(range(13)) + list(range(NB, NB + 13))
NATURALS = [13, 14, NB + 13, NB + 14]
LEGAL = [2 * NB, 2 * NB + 1]
FIRST = [2 * NB + 2]
assert NJ0 == 33 and NQ == 3 and NJ == 99


def phased(cols: list[int], phases: tuple[int, ...] = (0, 1, 2)) -> list[int]:
    """The block's columns ``cols`` under each phase function of ``phases`` (phase-major, as the value's)."""
    return sorted(q * NJ0 + j for q in phases for j in cols)


#: name -> (the subset's columns of the 99, what it is)
SUBSETS = {
    "all": (list(range(NJ)), "all 99 (shipped)"),
    "ranks": (phased(RANKS), "ranks, own and others', x3 phases"),
    "ranks-1": (phased(RANKS, (0,)), "ranks, own and others', no phase"),
    "ranks-own-1": (phased(RANKS[:13], (0,)), "own ranks only, no phase"),
    "ranks+first": (phased(RANKS + FIRST), "ranks + first, x3"),
    "ranks+naturals": (phased(RANKS + NATURALS), "ranks + naturals, x3"),
    "ranks+legal": (phased(RANKS + LEGAL), "ranks + legal counts, x3"),
    "ranks+naturals+first": (phased(RANKS + NATURALS + FIRST), "all but the legal counts, x3"),
    "ranks+legal+first": (phased(RANKS + LEGAL + FIRST), "all but the naturals, x3"),
    "all-1": (list(range(NJ0)), "all 33, no phase"),
    # a seat's own cards alone: a draw or a play changes one seat's value, not every seat's
    "own-ranks": (phased(RANKS[:13]), "own ranks only, x3"),
    "own+naturals": (phased(RANKS[:13] + NATURALS[:2]), "own ranks + own naturals, x3"),
}

#: The parts whose corrections a ratio takes: each alone (deal, draws, choices), and the chance events without the
#: choices (a walk that left the policies' random choices uncorrected).
PART_SETS = [[0], [1], [2], [0, 1]]

TABLES = {
    "heads-up": ([("classic", ["expert", "dump-faces"])], 20000),
    "five": ([("classic", ["random", "hold-nines", "dump-faces", "suit-majority", "expert"])], 10000),
    "compare": ([("classic", ["expert", "dump-faces"]), ("hard-nines", ["expert", "dump-faces"])], 20000),
}


def sub_moments(m: Moments, cols: list[int]) -> Moments:
    """The moments of the blocks' columns ``cols`` and the target (the last column)."""
    idx = np.array([*cols, NJ])
    return Moments(m.n, m.mean[..., idx], m.cross[..., idx[:, None], idx[None, :]])


def explained(m: Moments, points: np.ndarray) -> np.ndarray:
    """Per kind and seat, the share of the target's variance over ``m``'s hands that stage 1 ``points`` (3, P, NJ)
    explains (its intercept the hands' own mean: 1 - residual variance / variance), from the sums alone."""
    cxx, cxy, cyy = m.cross[..., :NJ, :NJ], m.cross[..., :NJ, NJ], m.cross[..., NJ, NJ]
    resid = cyy - 2 * np.einsum("kpj,kpj->kp", points, cxy) + np.einsum("kpi,kpij,kpj->kp", points, cxx, points)
    return 1 - resid / cyy


def chunks(rules, specs: list[str], start: int, n: int):  # noqa: ANN001, ANN201
    """Each chunk of CHUNK matches' walked hands, in match order (its hands' matches from the range's start)."""
    for s in range(start, start + n, CHUNK):
        m = min(CHUNK, start + n - s)
        luck = measure_luck(rules, specs, SEED, s, m, keep_parts=False)
        yield s - start, m, luck


def fit_subsets(rules, specs: list[str], n_fit: int) -> tuple[dict, Moments]:  # noqa: ANN001
    """Each subset's value fitted on ``n_fit`` reserved matches: {name: (stage 1 (3, P, NJ), stage 2 (P, NC))}, and
    the reserved hands' moments (all 99 columns)."""
    P = len(specs)
    fit_hands, fit_shares, moments = [], [], None
    for _, m, luck in chunks(rules, specs, FIT_START, n_fit):  # the reserved hands kept: stage 2 walks them again
        mo = Moments.of(luck.hand_blocks, luck.hand_penalties)
        moments = mo if moments is None else moments.merge(mo)
        fit_hands.append((m, luck.hand_blocks, luck.hand_match, luck.hand_weights))
        fit_shares.append(luck.shares)
    shares_fit = np.concatenate(fit_shares)
    values = {}
    for name, (cols, _) in SUBSETS.items():
        points = np.zeros((3, P, NJ))
        points[..., cols] = sub_moments(moments, cols).ridge(RIDGE_ALPHA)
        luck = np.concatenate(
            [
                np.stack([sum(match_luck(k, p, m, b, hm, hw, points[k, p]) for k in range(3)) for p in range(P)], 1)
                for m, b, hm, hw in fit_hands
            ]  # fmt: skip
        )
        coef = np.stack([least_squares(luck[:, p], shares_fit[:, p]) for p in range(P)])  # (P, NC)
        values[name] = (points, coef)
    return values, moments


def table(preset: str, specs: list[str], n: int) -> dict:
    """One rule set's reserved and run matches reduced: per subset, the run's corrections (n, 3, P), and its
    stage 1's share of the variance in and out of sample."""
    rules = make_rules(preset).replace(players=len(specs))
    P = len(specs)
    t0 = time.process_time()
    values, moments = fit_subsets(rules, specs, FIT)
    t1 = time.process_time()
    corr = {name: np.zeros((n, 3, P)) for name in SUBSETS}
    shares, run_moments = np.zeros((n, P)), None
    for s, m, luck in chunks(rules, specs, 0, n):
        shares[s : s + m] = luck.shares
        mo = Moments.of(luck.hand_blocks, luck.hand_penalties)
        run_moments = mo if run_moments is None else run_moments.merge(mo)
        for name, (points, coef) in values.items():
            for k in range(3):
                for p in range(P):
                    ml = match_luck(k, p, m, luck.hand_blocks, luck.hand_match, luck.hand_weights, points[k, p])
                    corr[name][s : s + m, k, p] = ml @ coef[p]
    t2 = time.process_time()
    print(f"  {preset} {specs}: fit walk {t1 - t0:.1f} s, run walk {t2 - t1:.1f} s (processor)", flush=True)
    r2 = {name: (explained(moments, v[0]), explained(run_moments, v[0])) for name, v in values.items()}
    return {"shares": shares, "corr": corr, "r2": r2, "specs": specs, "preset": preset}


def main(which: str, n: int | None = None) -> None:
    rule_sets, full = TABLES[which]
    n = n or full
    done = [table(preset, specs, n) for preset, specs in rule_sets]
    rows = []
    for name, (cols, what) in SUBSETS.items():
        if which == "compare":
            shifts = paired_shifts([d["shares"] for d in done], [d["corr"][name] for d in done])
            d0, d1 = done
            diff = d1["shares"] - d0["shares"]
            for sh in shifts[:1]:  # heads-up: the second seat's shift is the first's negated
                e = sh.estimate
                parts = [variance_ratio(diff[:, sh.seat], diff[:, sh.seat] - (d1["corr"][name][:, k, sh.seat]
                                        - d0["corr"][name][:, k, sh.seat]).sum(axis=1))[0]
                         for k in PART_SETS]  # fmt: skip
                rows.append(row(which, name, what, cols, sh.seat, d0["specs"][sh.seat], e, parts,
                                np.nan, np.nan))  # fmt: skip
            continue
        d = done[0]
        est = adjusted_rates(d["shares"], d["corr"][name])
        for p, e in enumerate(est):
            parts = [variance_ratio(d["shares"][:, p], d["shares"][:, p] - d["corr"][name][:, k, p].sum(axis=1))[0]
                     for k in PART_SETS]  # fmt: skip
            r2_in, r2_out = d["r2"][name]
            rows.append(row(which, name, what, cols, p, d["specs"][p], e, parts, r2_in[:, p], r2_out[:, p]))
    frame = pd.DataFrame(rows)
    frame.to_csv(HERE / f"ratios-{which}.csv", index=False, float_format="%.6g")
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 200):
        print(frame[["subset", "columns", "strategy", "variance_ratio", "ratio_low", "ratio_high", "deal", "draws",
                     "choices", "luck_z", "r2_out_draw"]].to_string(index=False))  # fmt: skip


def row(which, name, what, cols, seat, strategy, e, parts, r2_in, r2_out) -> dict:  # noqa: ANN001
    """One CSV row: the subset, the seat, its ratio with its interval, each part's alone, the check, stage 1's R²."""
    out = {"table": which, "subset": name, "description": what, "columns": len(cols), "position": seat,
           "strategy": strategy, "matches": e.n, "win_rate": e.win_rate, "adjusted": e.adjusted,
           "variance_ratio": e.variance_ratio, "ratio_low": e.variance_ratio_ci[0],
           "ratio_high": e.variance_ratio_ci[1], "deal": parts[0], "draws": parts[1], "choices": parts[2],
           "deal_and_draws": parts[3], "luck_z": e.luck_z}  # fmt: skip
    for k, kind in enumerate(("deal", "draw", "choice")):
        out[f"r2_in_{kind}"] = float(r2_in[k]) if np.ndim(r2_in) else np.nan
        out[f"r2_out_{kind}"] = float(r2_out[k]) if np.ndim(r2_out) else np.nan
    return out


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
