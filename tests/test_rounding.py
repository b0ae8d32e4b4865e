"""One rounding rule for the console and report.md, no "-0.00", and terminal tables that stay aligned."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from nines_sim.experiments.compare_rules.tables import terminal_table
from nines_sim.reporting.markdown import pct, pp, pp_size
from nines_sim.results.rounding import FLOAT_FORMAT, decimal_text


def _via_csv(x: float) -> float:
    """The value report.md formats: written to a CSV with the runner's format and read back by pandas."""
    buf = io.StringIO()
    pd.DataFrame({"x": [x]}).to_csv(buf, index=False, float_format=FLOAT_FORMAT)
    buf.seek(0)
    return float(pd.read_csv(buf)["x"].iloc[0])


@pytest.mark.parametrize("in_memory", [0.00125, 0.26125 - 0.26, -0.00125, 0.26 - 0.26125, 0.004999999999, 0.0005])
def test_console_and_report_print_the_same_digits_for_a_value_and_its_csv_copy(in_memory: float) -> None:
    # 0.26125 - 0.26 is 0.0012499999999999734 in memory and 0.00125 in the CSV: both read +0.13.
    assert pp(in_memory) == pp(_via_csv(in_memory))
    assert decimal_text(in_memory, 2, signed=True, scale=100) == pp(_via_csv(in_memory))


def test_half_rounds_away_from_zero_and_zero_has_no_sign() -> None:
    assert pp(0.00125) == "+0.13" and pp(0.26125 - 0.26) == "+0.13"
    assert pp(-0.00125) == "-0.13"
    assert pp(-0.00001) == "0.00" and pp(0.0) == "0.00" and pp(-0.0) == "0.00"
    assert decimal_text(-0.004, 2) == "0.00" and decimal_text(-0.006, 2) == "-0.01"
    assert pct(0.2512) == "25.12%" and pct(float("nan")) == "n/a" and pp(None) == "n/a"
    assert pp_size(-0.0231) == "2.31"


def test_a_long_rule_set_label_keeps_the_terminal_table_aligned() -> None:
    long_label = "classic:nine_penalty=25,no_nine_out=true,draw_rule=until-playable"
    rows = []
    for rule_set, delta in (("classic", np.nan), (long_label, 0.0125)):
        for pos, name in enumerate(("random", "hold-nines")):
            rows.append({"rule_set": rule_set, "position": pos, "strategy": name, "win_rate": 0.5,
                         "win_rate_low": 0.45, "win_rate_high": 0.55, "delta_win_rate": delta,
                         "delta_low": delta - 0.01,
                         "delta_high": delta + 0.01, "delta_p_value": 0.01 if rule_set != "classic" else np.nan,
                         "significant": rule_set != "classic", "test": "exact McNemar"})  # fmt: skip
    lines = terminal_table(pd.DataFrame(rows)).splitlines()
    table = lines[:5]
    # Every column starts at the same offset in every row: the header's, found by its title.
    for title in ("seat:strategy", "win rate [95% CI]", "change vs first [95% CI]"):
        col = table[0].index(title)
        assert all(line[col - 1] == " " and line[col] != " " for line in table[1:]), (title, table)
    assert "+1.25 pp [+0.25, +2.25] *" in table[3]


def test_a_search_players_speed_reads_as_what_it_is_not_zero() -> None:
    """A run slower than a match a second printed '0 matches/s' in its closing line and report.md."""
    from nines_sim.reporting.markdown import run_facts_tail
    from nines_sim.results.rounding import speed_text
    from nines_sim.runs.output import speed_fields

    assert [speed_text(x) for x in (0.0042, 0.48, 1.49, 9.4, 12_345.6)] == ["0.0042", "0.48", "1.5", "9.4", "12,346"]
    assert speed_text(None) == speed_text(float("nan")) == "n/a"
    slow = speed_fields(1_400.0, 0.0, 700)  # a refine run: 700 matches in 1,400 s
    line = next(x for x in run_facts_tail(slow) if x.startswith("- **Wall time:**"))
    assert "(0.5 matches/s)" in line, line
