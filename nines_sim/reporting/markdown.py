"""The Markdown parts every report is built from: numbers with their units, table cells, and shared sections.

Numbers, rounded by the one rule of :mod:`nines_sim.results.rounding` that the console uses too:
``pct`` (rates as percentages), ``pp`` and ``pp_size`` (differences of rates in
percentage points), ``fixed``, ``num`` (manifest counts), ``format_p``,
``format_seconds``.  Words: ``test_name`` (the test behind a row),
``join_words``, ``not_significant`` / ``all_significant`` (the closing
sentence of a significance section), ``too_small_note`` and ``NONE_CLAIMED`` (a run too small
to rank).  Sections: ``key_options`` and
``options_text`` (the rules of a run), ``run_facts_tail`` (seed, workers, wall
time, software), ``charts_section`` and ``reproduce``.  Every formatter prints
``"n/a"`` for a missing or non-finite number rather than failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from nines_sim.game.rules import Rules
from nines_sim.results.rounding import decimal_text, speed_text
from nines_sim.results.stats import describe_test

#: Significance level of the Holm-adjusted tests (what the ``significant`` columns use).
ALPHA = 0.05

#: Rules options always shown, changed or not: the ones a reader needs to place the numbers.
ALWAYS_SHOWN = ("players", "target", "fixed_hands", "nine_penalty", "tie_rule")


# --------------------------------------------------------------------------- numbers


def pct(x: float, decimals: int = 2) -> str:
    """0.2512 -> ``"25.12%"``; NaN -> ``"n/a"`` (rounded as in :mod:`nines_sim.results.rounding`)."""
    text = decimal_text(x, decimals, scale=100)
    return text if text == "n/a" else f"{text}%"


def fixed(x: float, decimals: int) -> str:
    """A number with fixed decimals; NaN (e.g. nothing played) -> ``"n/a"``."""
    return decimal_text(x, decimals)


def pp(x: float) -> str:
    """A difference of rates in signed percentage points: 0.0123 -> ``"+1.23"``, ~0 -> ``"0.00"``; NaN -> ``"n/a"``."""
    return decimal_text(x, 2, signed=True, scale=100)


def pp_size(x: float) -> str:
    """The size of a difference of rates in percentage points, unsigned: -0.0123 -> ``"1.23"``."""
    return decimal_text(abs(x), 2, scale=100)


def format_p(p: float) -> str:
    """``"p = 0.0123"``, or ``"p < 0.0001"`` below what four decimals can show."""
    if p is None or not np.isfinite(p):
        return "p = n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"


def format_seconds(s: float) -> str:
    """Wall time for people: ``"42.0 s"``, ``"3 min 05 s"``, ``"2 h 03 min"``."""
    if s is None or not np.isfinite(s):
        return "n/a"
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def _speed(x: Any) -> str:
    """A manifest's matches/s for people (:func:`speed_text`), tolerating a value that is not a number."""
    return speed_text(x) if isinstance(x, int | float) else num(x)


def num(x: Any, fmt: str = ",") -> str:
    """Format a manifest number, tolerating a missing or non-numeric value."""
    try:
        return format(x, fmt)
    except (TypeError, ValueError):
        return "n/a" if x is None else str(x)


def share_of(played: Any, requested: Any) -> str:
    """``" (60%)"``: the share of the requested matches played, or ``""`` when either is not a number."""
    if isinstance(played, int | float) and isinstance(requested, int | float) and requested:
        return f" ({played / requested:.0%})"
    return ""


# --------------------------------------------------------------------------- words


def cell(text: Any) -> str:
    """Escape a pipe so a strategy or rule set name cannot break the Markdown table."""
    return str(text).replace("|", "\\|")


def test_name(row: Any) -> str:
    """The row's test in words ("exact binomial test"); "z-test" in a folder written before the column existed."""
    test = getattr(row, "test", None)
    if not isinstance(test, str) or not test:
        return "z-test"
    return describe_test(test)


def join_words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def code_list(labels: list[str]) -> str:
    """Labels as inline code, joined in words: ```a`, `b` and `c```."""
    return join_words([f"`{x}`" for x in labels])


def not_significant(n: int, total: int, noun: str) -> str:
    """``"2 of 6 comparisons were not significant at the 5% level after the Holm correction"`` (no full stop)."""
    return (
        f"{n} of {total} {noun}{'s' if total != 1 else ''} {'was' if n == 1 else 'were'} "
        f"not significant at the {ALPHA:.0%} level after the Holm correction"
    )


def all_significant(total: int, noun: str) -> str:
    """``"All 6 comparisons were significant at the 5% level after the Holm correction."``"""
    return f"All {total} {noun}s were significant at the {ALPHA:.0%} level after the Holm correction."


# --------------------------------------------------------------------------- sections


def key_options(rules: dict[str, Any]) -> dict[str, Any]:
    """Rules options worth printing: the always-shown ones and every one that differs from the defaults.

    Parameters
    ----------
    rules : dict
        ``manifest["rules"]``: option name -> value (lists for tuples, as JSON stores them).

    Returns
    -------
    dict
        Option -> value, in the manifest's order.
    """
    defaults = Rules().options()
    out: dict[str, Any] = {}
    for name, value in rules.items():
        default = defaults.get(name)
        # JSON turns the hand_sizes tuple into a list; compare like with like.
        same = (list(value) == list(default)) if isinstance(default, tuple) and value is not None else value == default
        if name in ALWAYS_SHOWN or name not in defaults or not same:
            out[name] = value
    if out.get("fixed_hands") == 0:
        # 0 means "play to the target": say nothing rather than print a confusing zero.
        del out["fixed_hands"]
    return out


def option_text(value: Any) -> str:
    """An option's value as ``--rule`` takes it: ``"7,7,7"`` for a list, else the value."""
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def options_text(rules: dict[str, Any]) -> str:
    """``"players=4, target=100, ..."``: the key options of a rules dict, or ``"default options"``."""
    shown = ", ".join(f"{k}={option_text(v)}" for k, v in key_options(rules).items())
    return shown or "default options"


#: Longest command the Run section writes out; a longer one (a tuned strategy's values, written in full) is
#: given once, in the Reproduce section.
COMMAND_SHOWN = 240


def command_line(m: dict[str, Any]) -> str:
    """The Run section's ``- **Command:**`` line: the command, or where to find it when it is long."""
    command = str(m.get("command", "n/a"))
    if len(command) <= COMMAND_SHOWN:
        return f"- **Command:** `{command}`"
    return f"- **Command:** {len(command):,} characters (every parameter value in full): see Reproduce below"


def _compiling(m: dict[str, Any]) -> str:
    """Words after the speed for a run that compiled the engine's code first (its speed counts play only)."""
    c = m.get("compile_seconds")
    if not isinstance(c, int | float) or c <= 0:
        return ""
    return f" of play; {format_seconds(c)} of the wall time compiled the engine's code, first run only"


def run_facts_tail(m: dict[str, Any], rate_note: str = "") -> list[str]:
    """The last lines of every report's run facts: seed, workers, wall time and software, then a blank line.

    Parameters
    ----------
    m : dict
        ``manifest.json``.
    rate_note : str
        Words after the matches per second, e.g. ``" over all rule sets"``.
    """
    return [
        f"- **Seed:** {m.get('seed', 'n/a')}",
        f"- **Workers:** {m.get('workers', 'n/a')} (batch size {m.get('batch_size', 'n/a')})",
        f"- **Wall time:** {format_seconds(m.get('wall_seconds'))} "
        f"({_speed(m.get('matches_per_s'))} matches/s{rate_note}{_compiling(m)})",
        f"- **Software:** nines-sim {m.get('version', 'n/a')}, Python {m.get('python', 'n/a')}, "
        f"numpy {m.get('numpy', 'n/a')}; started {m.get('started', 'n/a')}",
        "",
    ]


def charts_section(folder: Path, captions: dict[str, tuple[str, str]]) -> list[str]:
    """``## Charts``: each chart file that exists in the folder, with its title and numbered caption.

    Parameters
    ----------
    folder : pathlib.Path
        The run folder.
    captions : dict
        File name -> (title, caption), in the order to show them.

    Returns
    -------
    list of str
        Empty when no chart file exists.
    """
    present = [name for name in captions if (folder / name).is_file()]
    if not present:
        return []
    lines = ["## Charts", ""]
    for i, name in enumerate(present, start=1):
        title, caption = captions[name]
        lines += [f"![{title}]({name})", "", f"*Figure {i}. {caption}*", ""]
    return lines


def kept_command_lines(m: dict[str, Any]) -> list[str]:
    """The command that plays exactly the matches a partial run kept (``kept_command`` in the manifest)."""
    if not m.get("kept_command"):
        return []
    return ["This one plays exactly the matches kept, to the same numbers:", "", "```bash", str(m["kept_command"]),
            "```", ""]  # fmt: skip


def too_small(m: dict[str, Any]) -> bool:
    """Whether the manifest marks the run as too small to rank (``too_small_to_rank``)."""
    return bool(m.get("too_small_to_rank"))


def too_small_note(m: dict[str, Any], per: str) -> list[str]:
    """The note atop a report of a run too small to rank: why there are no ranks and no significance claims."""
    if not too_small(m):
        return []
    games = m.get("games")
    kept = m.get("matches_played")
    if isinstance(games, list) and games and all(isinstance(g, dict) for g in games):
        kept = min((g.get("matches_played") for g in games), key=lambda x: x if isinstance(x, int) else 0)
    return [
        f"> **TOO FEW MATCHES TO RANK:** the results hold {num(kept)} matches {per}, fewer than the "
        f"{num(m.get('min_matches_to_rank'))} that the intervals and tests need (they rely on the normal "
        "approximation, n·p·(1-p) >= 10). The numbers are listed without ranks, and no difference is claimed "
        "significant.",
        "",
    ]


#: The significance section of a run too small to rank.
NONE_CLAIMED = "None is claimed: too few matches were played to test them (see the note at the top)."


def reproduce(m: dict[str, Any], partial_note: str | None = None, note_first: bool = False) -> list[str]:
    """``## Reproduce``: the command that replays the run; for a partial run what it plays, and the kept command.

    Parameters
    ----------
    m : dict
        ``manifest.json``.
    partial_note : str, optional
        The sentence for a partial run; shown only when the manifest says ``partial``.
    note_first : bool
        Put that sentence before the command rather than after it.
    """
    lines = [
        f"With nines-sim {m.get('version', 'n/a')}, this command replays the run exactly (seed {m.get('seed', 'n/a')}; "
        "the results do not depend on the number of workers or the batch size):",
        "",
        "```bash",
        str(m.get("command", "n/a")),
        "```",
        "",
    ]
    note = [partial_note, ""] if partial_note and m.get("partial") else []
    kept = kept_command_lines(m) if m.get("partial") else []
    return ["## Reproduce", "", *(note + lines if note_first else lines + note), *kept]
