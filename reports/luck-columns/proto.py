"""A prototype of a cheap value's walk (issue 41's cost): each event's change of a value of the cards by rank
(own and the others'), with or without the hand's phase, with or without the naturals of the active suit and of
the top card's rank, in numba over a trace's stored rows, as a walk inside the turn loop would do at each event.

Its corrections are checked against the shipped walk's under the same value (``measure_luck`` with the subset's
value: its card block weights zero but the subset's columns), then timed, in one process and in turns, against:
the rows read alone (a loop on each row's kind, the bookkeeping of the hands the choices need, no value), the
shipped walk in numbers under the shipped value (all 99 columns, ``RowWalker``'s ``scalar``), and the plain loop
per match (``CompiledEngine``, 20,000 and 100,000 matches: the marginal cost).  The ranks and naturals' walk is
timed with each step left out in turn, and in a ``fast`` form (the hands' sizes kept as they change, a play's
choices' mean taken once by rank and suit for every seat: ``make_walk``).

    nice -n 5 python reports/luck-columns/proto.py heads-up 4000 5 [CSV]   # matches, rounds, the CSV's name

Classic rules only (no V4 pair; a declare changes no rank count, so a value of the ranks alone gives it no
correction).  Writes ``proto-<table>.csv`` (or CSV) beside this file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.seats import seat_ids
from nines_sim.game.cards import N_RANKS
from nines_sim.game.rules import make_rules
from nines_sim.luck.compiled import RowWalker, TracingEngine, _tables
from nines_sim.luck.features import NB, NJ0, NQ
from nines_sim.luck.measure import measure_luck
from nines_sim.luck.value import LinearValue
from nines_sim.strategy.registry import make_lineup

sys.path.insert(0, str(Path(__file__).parent))
from columns import TABLES, fit_subsets  # noqa: E402
from rank_walk import make_walk, read_rows, scratch  # noqa: E402

HERE = Path(__file__).parent


def value_of(points: np.ndarray, coef: np.ndarray, name: str) -> LinearValue:
    """The subset's value as the walk takes it: the outer product of its two stages."""
    P = coef.shape[0]
    w = np.stack([np.stack([np.outer(coef[p], points[k, p]).ravel() for p in range(P)]) for k in range(3)])
    return LinearValue(w, name, points)


def proto_tables(points: np.ndarray, nq: int, nat: bool) -> tuple[np.ndarray, np.ndarray]:
    """The prototype's weights from stage 1's (3, P, NJ): ranks (3, P, NQ, 2, 13), naturals (3, P, NQ, 2, 2)."""
    P = points.shape[1]
    wt, wn = np.zeros((3, P, NQ, 2, N_RANKS)), np.zeros((3, P, NQ, 2, 2))
    for q in range(nq):
        for b in range(2):
            o = q * NJ0 + b * NB
            wt[:, :, q, b] = points[:, :, o : o + N_RANKS]
            if nat:
                wn[:, :, q, b] = points[:, :, o + N_RANKS : o + NB]
    return wt, wn


#: The subsets the prototype walks: name -> (phase functions, naturals)
PROTO = {
    "ranks": (3, False, False),
    "ranks-1": (1, False, False),
    "ranks+naturals": (3, True, False),
    "fast ranks+naturals": (3, True, True),
    "fast ranks-1": (1, False, True),
}


def main(which: str, n: int, rounds: int, out: Path | None = None) -> None:
    preset, specs = TABLES[which][0][0]
    rules = make_rules(preset).replace(players=len(specs))
    assert not (rules.pair_of_nines or rules.no_nine_out or rules.fixed_hands)  # nine_on_nine: the pair only
    P = rules.players
    lineup = make_lineup(specs)
    sids = np.array(seat_ids(lineup), dtype=np.int64)
    legal, deal_mean = _tables(rules)
    values, _ = fit_subsets(rules, specs, 1000)  # any fitted value will do for a check and a time
    engine = TracingEngine(rules, lineup, 0, 0, n, batch_size=1, specs=specs)
    engine.run()
    rows = np.ascontiguousarray(engine.rows())
    print(f"{n} matches, {rows.shape[0] / n:.0f} rows a match", flush=True)
    args = {}
    for name, (nq, nat, fast) in PROTO.items():
        points, coef = values[name.removeprefix("fast ")]
        wt, wn = proto_tables(points, nq, nat)
        corr, shares = np.zeros((n, 3, P)), np.zeros((n, P))
        call = (rows, P, rules.decks, sids, legal, deal_mean, float(rules.target), 0, 0, wt, wn, coef)
        make_walk(nq, nat, 0, fast)(*call, corr, shares, scratch(P))
        ref = measure_luck(rules, specs, 0, 0, n, value=value_of(points, coef, name))
        err = np.abs(corr - ref.corrections).max()
        scale = np.abs(ref.corrections).max()
        print(f"  {name}: largest difference from the shipped walk {err:.2e} (corrections up to {scale:.3f}); "
              f"shares equal: {np.array_equal(shares, ref.shares)}", flush=True)  # fmt: skip
        assert err <= 1e-12 * max(scale, 1.0), name
        args[name] = call
    full = value_of(*values["all"], "all")
    #: the ranks and naturals' walk with one step left out (its bit of ``skip``) and all of them (15)
    skips = {"no deal": 1, "no draws": 2, "no choices": 4, "no ends": 8, "no step": 15}
    #: the same, of the fast form (``make_walk``'s ``fast``)
    fast_skips = {"fast no draws": 2, "fast no choices": 4, "fast no step": 15}
    times: dict[str, list[float]] = {k: [] for k in ["read", "shipped", *PROTO, *skips, *fast_skips, "plain"]}
    read_rows(rows, P, rules.decks, sids, legal, scratch(P))  # compiled before the rounds
    for skip, fast in [(x, False) for x in skips.values()] + [(x, True) for x in fast_skips.values()]:  # compiled
        make_walk(3, True, skip, fast)(*args["ranks+naturals"], np.zeros((n, 3, P)), np.zeros((n, P)), scratch(P))
    CompiledEngine(rules, lineup, 0, 0, 1000, specs=specs).run()
    plain_small, plain_big = 20000, 100000
    for _ in range(rounds):
        t = time.process_time()
        read_rows(rows, P, rules.decks, sids, legal, scratch(P))
        times["read"].append((time.process_time() - t) / n * 1e6)
        walker = RowWalker(rules, sids, 0, n, 1, True, False, False, full, False)
        t = time.process_time()
        walker.feed(0, rows)
        times["shipped"].append((time.process_time() - t) / n * 1e6)
        for name, call in args.items():
            corr, shares = np.zeros((n, 3, P)), np.zeros((n, P))
            t = time.process_time()
            nq, nat, fast = PROTO[name]
            make_walk(nq, nat, 0, fast)(*call, corr, shares, scratch(P))
            times[name].append((time.process_time() - t) / n * 1e6)
        for name, skip in skips.items():
            corr, shares = np.zeros((n, 3, P)), np.zeros((n, P))
            t = time.process_time()
            make_walk(3, True, skip, False)(*args["ranks+naturals"], corr, shares, scratch(P))
            times[name].append((time.process_time() - t) / n * 1e6)
        for name, skip in fast_skips.items():
            corr, shares = np.zeros((n, 3, P)), np.zeros((n, P))
            t = time.process_time()
            make_walk(3, True, skip, True)(*args["ranks+naturals"], corr, shares, scratch(P))
            times[name].append((time.process_time() - t) / n * 1e6)
        spent = []
        for k in (plain_small, plain_big):
            t = time.process_time()
            CompiledEngine(rules, lineup, 0, 0, k, specs=specs).run()
            spent.append(time.process_time() - t)
        times["plain"].append((spent[1] - spent[0]) / (plain_big - plain_small) * 1e6)
        print("  " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in times.items()) + " us a match", flush=True)
    frame = pd.DataFrame({k: v for k, v in times.items()})
    frame.insert(0, "round", range(1, rounds + 1))
    frame.to_csv(out or HERE / f"proto-{which}.csv", index=False, float_format="%.2f")
    print(frame.describe().loc[["min", "50%", "max"]].to_string(float_format="%.1f"))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), HERE / sys.argv[4] if len(sys.argv) > 4 else None)
