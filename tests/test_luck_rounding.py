"""The luck's rates rounded as the results table rounds them: `expert`'s 14,357 wins of 20,000 (0.71785) read
0.7179 in the table and report.md's main table, but 0.7178 in the console's "Luck taken out" line and report.md's
luck table (Python's float formatting of 0.71784999...).  One rate, one text: :mod:`nines_sim.results.rounding`."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from nines_sim.luck.tournament import luck_frame, luck_lines, table_luck
from nines_sim.reporting.luck import luck_section
from nines_sim.results.rounding import FLOAT_FORMAT, decimal_text


def _luck_of_14357_wins_in_20000():
    n, wins = 20_000, 14_357
    shares = np.zeros((n, 2))
    shares[:wins, 0] = 1.0
    shares[wins:, 1] = 1.0
    corrections = np.zeros((n, 3, 2))  # draws alone, mean zero: the adjusted rate is 0.71785 too
    corrections[::2, 1, 0], corrections[1::2, 1, 0] = 0.01, -0.01  # a spread, so that the ratios are finite
    corrections[:, 1, 1] = -corrections[:, 1, 0]
    return table_luck(SimpleNamespace(name="test value"), shares, corrections, 4_000, 1.0)


def test_the_luck_line_and_report_show_the_rate_as_the_results_table_does(tmp_path):
    luck = _luck_of_14357_wins_in_20000()
    assert luck.seats[0].win_rate == 14_357 / 20_000 and f"{14_357 / 20_000:.4f}" == "0.7178"  # the case itself
    table_text = decimal_text(luck.seats[0].win_rate, 4)  # as terminal_table and report.md's main table show it
    assert table_text == "0.7179"
    line = luck_lines(luck, ["expert", "dump-faces"])[1]
    assert line.split()[:3] == ["expert", table_text, "->"], line
    # report.md reads luck.csv back, as written
    luck_frame(luck, ["expert", "dump-faces"]).to_csv(tmp_path / "luck.csv", index=False, float_format=FLOAT_FORMAT)
    frame = pd.read_csv(tmp_path / "luck.csv")
    row = next(r for r in luck_section(frame, {}) if r.startswith("| 0 | expert |"))
    assert row.split(" | ")[2] == table_text, row
