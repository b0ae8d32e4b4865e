"""What the commands share: the usage errors of the lineup and the rules, the run folder, the cluster, the
library's errors said in one line, and Ctrl-C's exit code (a strategy's failure in play is said by the app
itself, around every command: :func:`nines_sim.cli.app.strategy_failed`)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from nines_sim.cli.app import echo_error, usage_error
from nines_sim.game.rules import Rules, RulesError, parse_overrides
from nines_sim.runs.runfolder import rules_for


def build_rules(spec: str, overrides: list[str] | None, players: int | None = None) -> Rules:
    """Rules from ``--rules`` (a rule set, :func:`~nines_sim.game.rules.parse_rule_set`) and ``--rule key=value``.

    ``players``, the table the lineup seats, applies unless a ``--rule players=N`` says otherwise (the
    commands check that against the lineup first).

    Raises
    ------
    typer.Exit
        A usage error (one line, exit code 2) for an unknown preset or option, a bad value, an option set
        twice, or an impossible combination.
    """
    try:
        return rules_for(spec, overrides, players)
    except RulesError as exc:
        raise usage_error(str(exc)) from None


def interrupted(what: str) -> typer.Exit:
    """Ctrl-C in a command that writes no results: say what stopped in one line on stderr; exit 130 (as Ctrl-C)."""
    typer.echo(f"Interrupted (Ctrl-C): {what}", err=True)
    return typer.Exit(code=130)


def nothing_kept() -> typer.Exit:
    """A run stopped before any match was kept: say so, write nothing, exit 130 (as Ctrl-C does)."""
    from nines_sim.runs.stages import STARTING_STOPPED, stopped_words

    if stopped_words() != STARTING_STOPPED:  # the matches were played: 'before any match was kept' is untrue
        echo_error(stopped_words())
        return typer.Exit(code=130)
    # matches may have finished out of order; a stopped chunk keeps only those from its start up
    typer.echo("Stopped before any match was kept: no results were written.", err=True)
    return typer.Exit(code=130)


def players_wanted(players: int | None, rule: list[str] | None) -> tuple[int | None, str]:
    """--players, else a --rule players=N, and how the user wrote it; a usage error outside 2-6, or where the two
    disagree (--players 2 with --rule players=3 played 2 seats without a word)."""
    flag = f"--players {players}"
    try:
        in_rule = parse_overrides(rule or []).get("players")
    except RulesError as exc:
        raise usage_error(str(exc)) from None
    if players is not None and in_rule is not None and in_rule != players:
        raise usage_error(f"--players {players} disagrees with --rule players={in_rule}; give the table size once")
    if players is None:
        players, flag = in_rule, f"--rule players={in_rule}"
    if players is not None and not 2 <= players <= 6:
        raise usage_error(f"players must be 2 to 6 (RULES.md D1), not {players}")
    return players, flag


def check_blank(**given: str | None) -> None:
    """A usage error (one line, exit 2) for a text option given blank (``study=''``: ``--study ''``), which would
    otherwise mean what leaving it out means."""
    for key, value in given.items():
        if value is not None and not value.strip():
            option = "--" + key.replace("_", "-")
            raise usage_error(f"{option} is empty; give a value, or leave {option} out for its default")


def check_policy(policy: str) -> None:
    """A usage error (one line, exit 2) for a ``--policy`` that names no rollout strategy of the search."""
    from nines_sim.search.policies import POLICY_NAMES
    from nines_sim.spelling import did_you_mean

    if policy not in POLICY_NAMES:
        hint = did_you_mean(policy, POLICY_NAMES)
        raise usage_error(f"--policy must be one of {', '.join(POLICY_NAMES)}, not {policy!r}{hint}")


def refuse_options(ctx: typer.Context | None, applies: set[str], what: str, saved: str | Path | None = None) -> None:
    """A usage error (one line, exit 2) naming every option given on the command line that does not apply here.

    For a command whose input fixes what the options would set (a saved match is replayed, reviewed or resumed
    as it was played): an option it does not use is refused, never ignored.

    Parameters
    ----------
    ctx : typer.Context or None
        The command's context (None: the command was called from Python, and nothing is checked).
    applies : set of str
        The parameters (their Python names) that apply.
    what : str
        The start of the message, e.g. ``a saved match is replayed as it was played``.
    saved : str or pathlib.Path, optional
        The saved match the command was given: a path to no file is said first, as it would be without those
        options, rather than options that do not apply to a file that is not there.
    """
    if ctx is None:  # the command called from Python: no command line
        return
    given = [
        next((o for o in p.opts if o.startswith("--")), p.opts[0]) if p.param_type_name == "option" else p.name
        for p in ctx.command.params
        if p.name not in applies and getattr(ctx.get_parameter_source(p.name), "name", "DEFAULT") == "COMMANDLINE"
    ]
    if given and saved is not None and not Path(saved).is_file():  # load says why, in its words
        from nines_sim.play import SavedMatchError, load

        try:
            load(saved)
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
    if given:
        raise usage_error(f"{what}: give no {', '.join(given)} with it")


def luck_fit_checked(luck: bool, luck_fit: int | None, matches: int, fmt: str, ranges: str | None,
                     names: list[str]) -> int:  # fmt: skip
    """The fit of ``--luck`` (``--luck-fit``, default :data:`~nines_sim.experiments.extras.LUCK_FIT`), or a usage
    error (one line, exit 2): ``--luck-fit`` without ``--luck``, ``--luck`` on fewer than 2 matches (its intervals
    come from their spread: they would be nan), or where it does not apply
    (:func:`nines_sim.luck.tournament.check_luck`: a table only, whole runs)."""
    if luck_fit is not None and not luck:
        raise usage_error(f"--luck-fit {luck_fit} sets the fit of --luck: give --luck with it, or leave it out")
    if luck and matches < 2:
        raise usage_error(
            f"--luck needs --matches 2 or more: its intervals and variance ratios come from the spread across "
            f"matches (--matches {matches})"
        )
    if luck:
        from nines_sim.luck.tournament import LuckError, check_luck

        try:
            check_luck(fmt, ranges, names)
        except LuckError as exc:
            raise usage_error(str(exc)) from None
    from nines_sim.experiments.extras import LUCK_FIT

    return LUCK_FIT if luck_fit is None else luck_fit


def check_design(skilled: str, weak: str) -> None:
    """A usage error (one line, exit 2) for an unknown strategy of the design lineups (``--skilled``, ``--weak``)."""
    from nines_sim.experiments.design.setup import check_design as check
    from nines_sim.strategy.registry import StrategyNotFound

    try:
        check(skilled, weak)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None


def count(n: int, noun: str, nouns: str) -> str:
    """``1 strategy``, ``3 strategies``."""
    return f"{n} {noun if n == 1 else nouns}"


def check_seats(players: int | None, flag: str, names: list[str], given: bool) -> None:
    """A usage error unless the lineup seats 2-6 players, one strategy each, and agrees with --players."""
    n = len(names)
    if players is not None and players != n:
        if given:
            raise usage_error(
                f"{flag} disagrees with the {count(n, 'strategy', 'strategies')} given; a table seats one "
                f"strategy per player (repeat a name to seat it twice)"
            )
        raise usage_error(
            f"{flag} needs {players} strategies, one per seat: name them (the default lineup is {n}: {' '.join(names)})"
        )
    if not 2 <= n <= 6:
        raise usage_error(
            f"a table seats 2 to 6 players, one strategy each (RULES.md D1); {count(n, 'strategy', 'strategies')} given"
        )


@contextmanager
def run_folder(out: str | Path | None, kind: str, force: bool) -> Iterator[Path]:
    """The run folder (:func:`nines_sim.runs.runfolder.run_folder`), its errors as the CLI says them: an empty or
    unusable ``--out`` a usage error; Ctrl-C before any match was kept, exit 130 with nothing written."""
    from nines_sim.runs.errors import NothingKept, RunSetupError
    from nines_sim.runs.output import OutputExists
    from nines_sim.runs.runfolder import run_folder as folder

    try:
        with folder(out, kind, force) as run_dir:
            yield run_dir
    except (RunSetupError, OutputExists) as exc:
        raise usage_error(str(exc)) from None
    except NothingKept:
        raise nothing_kept() from None


@contextmanager
def cluster(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client (None without a scheduler), or a usage error (exit 2) that says why not."""
    from nines_sim.runs.runfolder import compute_backend

    if not scheduler:
        with compute_backend(None, workers) as client:
            yield client
        return
    from nines_sim.runs.cluster import ClusterError

    try:
        with compute_backend(scheduler, workers) as client:
            yield client
    except ClusterError as exc:
        raise usage_error(str(exc)) from None


@contextmanager
def compile_notices(quiet: bool | None = None) -> Iterator[None]:
    """Say on stderr when a form of the compiled code starts compiling in this process (the first run of a
    command after installing or editing, tens of seconds each) and how long it took, for commands without
    a run's progress bar (which says it itself): a first ``replay`` or ``analyze`` would otherwise sit silent.

    Nothing is said when ``quiet``.  By default (None), to a terminal as a progress bar would (each form as it
    starts and ends); into a file or a pipe, one plain line as the first form starts (``Compiling ...
    (first run only, then cached) ...``), so that a log or a pipe's reader waiting on a first run sees why;
    stdout is left as it is (what a command prints there does not depend on what the cache held).  A stream
    that is neither (an in-memory one, as Python code calling the app reads) hears nothing.  Written through
    tqdm, so that a trials' bar is not broken."""
    plain = False
    if quiet is None:
        quiet = not sys.stderr.isatty()
        plain = quiet and _os_stream(sys.stderr)
    if quiet and not plain:
        yield
        return
    import time

    from nines_sim.runs.pool import listen_for_compiles

    started: dict[str, float] = {}

    def say(form: str, start: bool) -> None:
        from tqdm import tqdm

        if plain:  # one line in all: a file or a pipe gets no per-form timings
            if start and not started:
                started[form] = 0.0
                said = f"Compiling {form} and the code this command needs with it (first run only, then cached) ..."
                tqdm.write(said, file=sys.stderr)
            return
        if start:
            started[form] = time.perf_counter()
            tqdm.write(f"compiling {form} (first run only, then cached) ...", file=sys.stderr)
        else:
            tqdm.write(f"compiled {form} in {time.perf_counter() - started.pop(form, time.perf_counter()):.0f} s",
                       file=sys.stderr)  # fmt: skip

    stop = listen_for_compiles(say)
    try:
        yield
    finally:
        stop()


def _os_stream(stream: Any) -> bool:
    """Whether ``stream`` writes to a file descriptor of the system (a file, a pipe, a terminal)."""
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return False
    return True


@contextmanager
def run_errors() -> Iterator[None]:
    """A library experiment's errors as the CLI says them.

    Its arguments (an empty ``--out`` or ``--scheduler``, ``--ranges`` that do not fit, an ``--out`` that holds
    files, a cluster that cannot be used) are usage errors (one line, exit 2); Ctrl-C before any match was kept
    exits 130 with nothing written.  (A strategy's failure is said where every command's is:
    :func:`nines_sim.cli.app.strategy_failed`.)
    """
    from nines_sim.runs.errors import NothingKept, RunSetupError
    from nines_sim.runs.output import OutputExists
    from nines_sim.runs.ranges import RangesError

    try:
        yield
    except (RunSetupError, RangesError, OutputExists) as exc:
        raise usage_error(str(exc)) from None
    except NothingKept:
        raise nothing_kept() from None
    except Exception as exc:
        # these modules' errors can only come from them once they are loaded: a usage error loads no engine
        cluster_ = sys.modules.get("nines_sim.runs.cluster")
        if cluster_ is not None and isinstance(exc, cluster_.ClusterError):
            raise usage_error(str(exc)) from None
        registry = sys.modules.get("nines_sim.strategy.registry")
        if registry is not None and isinstance(exc, registry.StrategyNotFound):  # e.g. a model for other rules
            raise usage_error(str(exc)) from None
        raise


def check_learned_digests(text: str | None, specs: list[str], *rule_sets: Rules) -> None:
    """``--learned-digests``: a warning line for each learned file the seats ``specs`` would load under the
    ``rule_sets`` whose digest is not the one named (the run's command played another model); a usage error (one
    line, exit 2) for a value that cannot be read."""
    if text is None:
        return
    from nines_sim.runs.learned_files import check_digests

    try:
        check_digests(text, specs, rule_sets)
    except ValueError as exc:
        raise usage_error(str(exc)) from None


def charts_and_report(run_dir: Path, no_charts: bool) -> str:
    """Draw a run folder's charts (unless ``no_charts``) and ``report.md``; the folder's kind."""
    from nines_sim.reporting import redraw

    return redraw(run_dir, charts=not no_charts)


def cpu_count_default() -> int:
    """The default number of worker processes: the CPU count."""
    from nines_sim.runs.simulate import cpu_count

    return cpu_count()


def is_folder(arg: str) -> bool:
    """Whether a typed argument names a folder; False for a name the system refuses (too long, a NUL), which the
    command then reports in its own one line, as for any other name it cannot open."""
    if not arg.strip():  # Path('') is the current folder; a blank argument names no folder
        return False
    try:
        return Path(arg).is_dir()
    except (OSError, ValueError):
        return False


def refuse_run_folder(args: list[str] | None, command: str, after: str = "") -> None:
    """A usage error (one line, exit 2) for a lineup argument that is a folder, such as a run folder given where
    ``replay`` and ``analyze`` take the run's lineup and ``--seed`` (read as a strategy file, it was refused as
    "a folder, not a .py file", which did not say what to give).

    Where the folder is a table run's (its ``manifest.json``: one table, its lineup, seed and rules), the message
    gives the command for that run, with ``K`` for the match and ``after`` appended (``--hand H --turn T``).

    Parameters
    ----------
    args : list of str or None
        The command's lineup arguments, as typed.
    command : str
        The subcommand (``replay``, ``analyze``).
    after : str, optional
        Words the command needs after ``--match K``.
    """
    folder = next((a for a in args or [] if is_folder(a)), None)
    if folder is None:
        return
    from nines_sim.runs.learned_files import warn_stale

    warn_stale(folder)  # the run's command may now play another learned model: said before it is given
    takes = f"'nines {command}' takes the lineup and --seed of a run, not its folder"
    for_run = _table_run_command(Path(folder), command, after)
    if for_run is not None:
        raise usage_error(f"{folder} is a run folder: {takes}; this run's, from its manifest.json: {for_run}")
    raise usage_error(
        f"{folder} is a folder: {takes} (a run's manifest.json names them): "
        f"nines {command} STRATEGY ... --seed S --match K{after and ' '}{after}"
    )


def _table_run_command(folder: Path, command: str, after: str) -> str | None:
    """The ``nines COMMAND`` line for match K of the table run in ``folder`` (None: not one table's run)."""
    import json

    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        games = manifest["games"]
        if manifest.get("format") != "table" or len(games) != 1:
            return None  # round-robin games, compared rule sets, reviews, training: no single lineup
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in manifest["rules"].items()}
        rules = Rules(**fields, preset=manifest["preset"])
        lineup, seed = [str(s) for s in games[0]["lineup"]], int(manifest["seed"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    from nines_sim.engine.broker import replay_command
    from nines_sim.runs.learned_files import digest_words

    words = shlex.join(digest_words(manifest.get("learned_files") or []))  # the learned files it played
    return replay_command(rules, lineup, seed, "K", command) + "".join(f" {w}" for w in (after, words) if w)


def saved_match_path(arg: str) -> bool:
    """Whether a lineup argument names a saved match (``nines play``'s .json file), not a strategy spec."""
    return arg.lower().endswith(".json") and "@" not in arg
