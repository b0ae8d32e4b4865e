"""The events a luck walk corrects, counted per match (issue 41's cost: what a walk inside the turn loop would do).

Matches 0 .. n - 1 of seed 0 in the trace form, their rows decoded and walked by the Python reference walk
(``nines_sim.luck.walk.Walker``), its steps counted: deals, draws (penalty draws too), reshuffles, plays, the plays
and declares that are random choices (more than one move or suit to pick from: each needs a correction) and their
choices, turns and event rows.  Per match, the mean over the matches.

    nice -n 5 python reports/luck-columns/events.py 2000

Writes ``events.csv`` beside this file.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from nines_sim.engine.events import decode
from nines_sim.engine.seats import seat_ids
from nines_sim.game.rules import make_rules
from nines_sim.luck import walk as W
from nines_sim.luck.compiled import TracingEngine
from nines_sim.strategy.registry import make_lineup

HERE = Path(__file__).parent
TABLES = {
    "heads-up": ("classic", ["expert", "dump-faces"]),
    "five": ("classic", ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]),
}


class Counting(W.Walker):
    """The reference walk, counting the steps that need a correction."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - Walker's
        super().__init__(*args, **kwargs)
        self.count: Counter = Counter()

    def _deal(self, *args) -> None:  # noqa: ANN002
        self.count["deals"] += 1
        super()._deal(*args)

    def _draw(self, *args) -> None:  # noqa: ANN002
        self.count["draws"] += 1
        super()._draw(*args)

    def _play(self, *args) -> None:  # noqa: ANN002
        self.count["plays"] += 1
        super()._play(*args)

    def _choose(self, seat, mv, choices=None) -> None:  # noqa: ANN001
        moves, _ = choices or self._play_choices(seat)
        if len(moves) > 1:
            self.count["play_choices"] += 1
            self.count["play_choice_moves"] += len(moves)
        super()._choose(seat, mv, choices)

    def _declare(self, seat, suit, mover) -> None:  # noqa: ANN001
        before = self.acc[2].copy()
        super()._declare(seat, suit, mover)
        sid = self.sids[seat]
        if sid in W.HEURISTICS or sid == W.SID_EXPERT:
            self.count["declares"] += 1
            if not np.array_equal(before, self.acc[2]) or sid == W.SID_RANDOM:  # more than one suit to pick from
                self.count["declare_choices"] += 1


def count(table: str, n: int) -> dict:
    preset, specs = TABLES[table]
    rules = make_rules(preset).replace(players=len(specs))
    lineup = make_lineup(specs)
    engine = TracingEngine(rules, lineup, 0, 0, n, batch_size=1, specs=specs)
    engine.run()
    rows = engine.rows()
    kinds = Counter(rows[:, 0].tolist())
    walker = Counting(rules, seat_ids(lineup))
    events: list[tuple] = []
    for _, ev in decode(rows, rules.players, rules.decks, choices=True):
        events.append(ev)
        if ev[0] == "match_end":
            walker.walk(events)
            events = []
        elif ev[0] == "reshuffle":
            walker.count["reshuffles"] += 1
        elif ev[0] == "turn":
            walker.count["turns"] += 1
    out = {"table": table, "matches": n, "event_rows": rows.shape[0] / n}
    out.update({k: v / n for k, v in sorted(walker.count.items())})
    out["row_kinds"] = len(kinds)
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    frame = pd.DataFrame([count(t, n) for t in TABLES])
    frame.to_csv(HERE / "events.csv", index=False, float_format="%.4g")
    print(frame.T.to_string())
