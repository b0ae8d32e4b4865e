"""Every chart of every run kind, one module per kind: a small data object built from the run folder's CSVs, and
a function that draws it.

- :mod:`~nines_sim.reporting.charts.common`: the file-only backend, figures, legends outside the data, tick
  labels that wrap, score histograms and saving, shared by every kind;
- :mod:`~nines_sim.reporting.charts.tournament`: ``nines tournament`` (``save_all``);
- :mod:`~nines_sim.reporting.charts.comparison` and :mod:`~nines_sim.reporting.charts.sweep`:
  ``nines compare-rules`` (``save_all_comparison``);
- :mod:`~nines_sim.reporting.charts.tune`: ``nines tune`` (``save_charts``);
- :mod:`~nines_sim.reporting.charts.league`: the ratings of a league or round robin (``save_chart``).

Each data function (``win_rate_data``, ``shift_data``, ...) turns CSV tables into the numbers plotted, and
each plot function ``plot_x(data, ax=None) -> Figure`` only draws.  The names of the tournament and comparison
charts are importable from here as well (``nines_sim.reporting.charts.save_all``), as before the split.
Intervals come from :mod:`nines_sim.results.stats`; nothing here tests anything.
"""

from nines_sim.reporting.charts.common import (
    CHAR_INCH,
    DPI,
    LEGEND_WIDTH,
    MAX_BINS,
    TICK_CHARS,
    Histogram,
    distribution_data,
    legend_outside,
    new_figure,
    nice_bin_width,
    plot_distribution,
    plt,
    save_png,
    tick_inches,
    wrap_label,
)
from nines_sim.reporting.charts.comparison import (
    COMPARISON_CHART_FILES,
    GroupedWinRates,
    Shifts,
    final_totals_by_rule_set_data,
    plot_final_totals_by_rule_set,
    plot_shifts,
    plot_win_rates_by_rule_set,
    save_all_comparison,
    shift_data,
    win_rates_by_rule_set_data,
)
from nines_sim.reporting.charts.sweep import SweepLines, plot_sweep, sweep_data
from nines_sim.reporting.charts.tournament import (
    CHART_FILES,
    HeadToHead,
    SeatGoOut,
    WinRates,
    head_to_head_data,
    plot_final_totals,
    plot_go_out_by_seat,
    plot_hand_penalties,
    plot_head_to_head,
    plot_win_rates,
    save_all,
    seat_go_out_data,
    win_rate_data,
)

__all__ = [
    "CHART_FILES",
    "COMPARISON_CHART_FILES",
    "LEGEND_WIDTH",
    "MAX_BINS",
    "TICK_CHARS",
    "GroupedWinRates",
    "HeadToHead",
    "Histogram",
    "SeatGoOut",
    "Shifts",
    "SweepLines",
    "WinRates",
    "CHAR_INCH",
    "DPI",
    "new_figure",
    "legend_outside",
    "save_png",
    "distribution_data",
    "final_totals_by_rule_set_data",
    "head_to_head_data",
    "nice_bin_width",
    "plot_distribution",
    "plot_final_totals",
    "plot_final_totals_by_rule_set",
    "plot_go_out_by_seat",
    "plot_hand_penalties",
    "plot_head_to_head",
    "plot_shifts",
    "plot_sweep",
    "plot_win_rates",
    "plot_win_rates_by_rule_set",
    "plt",
    "save_all",
    "save_all_comparison",
    "seat_go_out_data",
    "shift_data",
    "sweep_data",
    "tick_inches",
    "win_rate_data",
    "win_rates_by_rule_set_data",
    "wrap_label",
]
