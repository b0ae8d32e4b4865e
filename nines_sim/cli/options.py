"""The options several commands share, declared once (``Annotated`` types), and the tournament formats."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer


class Format(StrEnum):
    table = "table"
    round_robin = "round-robin"
    field = "field"
    league = "league"


StrategiesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Strategies: built-in names (see 'nines strategies'), module:Class or file.py:Class, "
        "each optionally with parameter values (NAME:key=value,... or NAME@best.json). "
        "Default: random hold-nines dump-faces suit-majority expert.",
        show_default=False,
    ),
]
#: The highest match index a command takes: match indices are 64-bit integers in the engine and its ranges,
#: so 2**62 leaves them room.
MAX_MATCH_INDEX = 2**62
#: The most matches one run plays: a run's list of chunks is built when it starts, and at this size it stays
#: small (and the run takes days on a laptop); a bigger study is several runs with --ranges or seeds.
MAX_MATCHES = 10**10


def at_most_max_matches(value: int | None) -> int | None:
    """Typer callback of a match count: above :data:`MAX_MATCHES` is a usage error, not a hang or an overflow."""
    if value is not None and value > MAX_MATCHES:
        raise typer.BadParameter(f"at most {MAX_MATCHES:,} matches a run (run more as several runs, --ranges)")
    return value


def at_most_max_match_index(value: int | None) -> int | None:
    """Typer callback of a match index: above :data:`MAX_MATCH_INDEX` is a usage error, not an overflow."""
    if value is not None and value > MAX_MATCH_INDEX:
        raise typer.BadParameter(f"at most {MAX_MATCH_INDEX:,} (2**62): match indices are 64-bit integers")
    return value


PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="Players at the table (2-6).")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")]
RULE_SET_SYNTAX = "preset[+preset][:key=value,...], e.g. hard-nines or 'classic:nine_penalty=20,no_nine_out=true'"
RulesOpt = Annotated[str, typer.Option("--rules", help=f"The rule set: {RULE_SET_SYNTAX} (see 'nines rules').")]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Run on a Dask cluster: tcp://HOST:8786, or 'local' for a LocalCluster "
        "of --workers processes (needs the dask extra). The numbers are identical to a local run.",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        max=256,
        help="Worker processes (default: CPU count). The numbers are identical for any value.",
    ),
]
BatchOpt = Annotated[
    int, typer.Option("--batch-size", min=1, max=10_000_000, help="Games in play at once per process.")
]


def out_option(help: str) -> typer.models.OptionInfo:  # noqa: A002 - Typer's word
    """The ``--out`` option of a command that writes a run folder, with its own ``help``.

    A str, not a Path: Typer turns '' into Path('.'), and an empty --out must not mean the current folder (the
    run folder checks it: :func:`nines_sim.runs.out_path.check_output_path`)."""
    return typer.Option("--out", metavar="FOLDER", help=help)


OutOpt = Annotated[str | None, out_option("Run folder (default: a new one under reports/).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite nines-sim's files in an existing --out folder.")]
NoChartsOpt = Annotated[bool, typer.Option("--no-charts", help="Write no PNG charts.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")]
RuleOpt = Annotated[list[str] | None, typer.Option("--rule", help="Override one rules option, key=value (repeatable).")]
ChunkOpt = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        min=1,
        help="Matches per unit of work (default: from --matches and --workers). A Ctrl-C loses at most "
        "the unfinished chunks, one per worker; the numbers are identical for any value.",
    ),
]
RangesOpt = Annotated[
    str | None,
    typer.Option(
        "--ranges",
        help="Play only these match indices of --matches: START:END[,START:END...] (end exclusive), "
        "e.g. the kept_command of a partial run's manifest.json.",
    ),
]
LearnedDigestsOpt = Annotated[
    str | None,
    typer.Option(
        "--learned-digests",
        help="FILE=DIGEST[,...]: the learned model and value files a run played, as its manifest's command names "
        "them; a warning names the file to use where one loads other weights now.",
    ),
]
DesignOpt = Annotated[
    int,
    typer.Option(
        "--design",
        min=0,
        callback=at_most_max_matches,
        help="Also measure the game itself under every rule set, on N matches per design lineup (0: off): skill "
        "(--skilled against --weak heads-up, and one --skilled among --weak at the table), seat fairness, length, "
        "comebacks and tension (the same --skilled strategy in every seat); writes design.csv and a report section.",
    ),
]
SkilledOpt = Annotated[str, typer.Option("--skilled", help="The skilled strategy of the design measures.")]
WeakOpt = Annotated[str, typer.Option("--weak", help="The weak strategy of the design measures.")]
