"""A run folder's life around an experiment: checked before play, removed if the run fails empty, written whole.

The pieces every experiment that writes a run folder shares (:mod:`nines_sim.experiments`, and the CLI's
``tune`` and ``review``): the folder (:func:`run_folder`), the Ctrl-C-proof writing (:func:`writing`),
the compute backend, local processes or a Dask cluster (:func:`compute_backend`), the command a manifest
records (:func:`canonical_command`), and the rules a run's options make (:func:`rules_for`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.game.rules import Rules, parse_overrides, parse_rule_set
from nines_sim.runs.errors import NothingKept, RunSetupError
from nines_sim.runs.ranges import Range, format_ranges
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.runs.stages import ctrl_c_heard, hearing_ctrl_c


def rules_for(spec: str, overrides: Sequence[str] | None = None, players: int | None = None) -> Rules:
    """Rules from a rule set (``--rules``: :func:`~nines_sim.game.rules.parse_rule_set`) and ``key=value`` overrides.

    ``players``, the table the lineup seats, applies unless an override ``players=N`` says otherwise.

    Raises
    ------
    nines_sim.game.rules.RulesError
        For an unknown preset or option, a bad value, an option set twice, or an impossible combination.
    """
    extra = parse_overrides(list(overrides or []))
    if players is not None and "players" not in extra:
        return parse_rule_set(spec, extra, players)
    return parse_rule_set(spec, extra)


def without_players(rule: Sequence[str] | None) -> list[str]:
    """The ``key=value`` overrides other than ``players=N`` (where the lineup seats the table)."""
    return [x for x in rule or [] if not x.replace(" ", "").startswith("players=")]


def canonical_command(
    cmd: str, strategies: list[str], options: dict, rule: list[str] | None, extra: list[str] | None = None
) -> str:
    """The shell command that reproduces a run (workers and batch size do not change the numbers).

    Parameters
    ----------
    cmd : str
        The ``nines`` subcommand.
    strategies : list of str
        The positional arguments.
    options : dict
        ``{"--option": value}``; a None value is left out.
    rule : list of str or None
        ``key=value`` overrides, each written as ``--rule key=value``.
    extra : list of str, optional
        Arguments written last, as they are.
    """
    parts = ["nines", cmd, *strategies]
    for k, v in options.items():
        if v is not None:
            parts += [k, str(v)]
    for r in rule or []:
        parts += ["--rule", r]
    return shlex.join(parts + (extra or []))


def check_scheduler(scheduler: str | None) -> None:
    """Raise :class:`RunSetupError` for a blank Dask scheduler address (None: run on local processes)."""
    if scheduler is not None and not scheduler.strip():
        raise RunSetupError("--scheduler needs an address such as tcp://HOST:8786, or local")


def ranges_wanted(text: str | None, matches: int) -> list[Range]:
    """The match indices a run plays: ``text`` (``START:END[,...]``) read within ``matches``, else all.

    Raises
    ------
    nines_sim.runs.ranges.RangesError
        If the text cannot be read or does not fit within ``matches``.
    """
    from nines_sim.runs.ranges import parse_ranges

    return [(0, matches)] if text is None else parse_ranges(text, matches)


@contextmanager
def run_folder(out: str | Path | None, kind: str, force: bool, held: ExitStack | None = None) -> Iterator[Path]:
    """The run folder, held by this run and checked writable before any match is played; removed again if the
    run fails empty.

    A run folder has one writer at a time (:func:`nines_sim.runs.folder_lock.one_writer`): the folder is locked
    before it is checked, and stays locked until the block ends, or until ``held`` closes.

    Parameters
    ----------
    out : str or pathlib.Path or None
        The folder; None for a new ``reports/<kind>-<UTC time>``.
    kind : str
        The run's kind, naming a new folder.
    force : bool
        Accept a folder that holds files (nines-sim's are replaced when the results are written).
    held : contextlib.ExitStack, optional
        Keep the folder's lock on this stack, so that it outlives the block: for a run that writes its results
        after the block (as :func:`play_in_folder`'s callers do).

    Raises
    ------
    RunSetupError
        For an ``out`` that cannot be a folder (:func:`nines_sim.runs.out_path.check_output_path`: empty, too long,
        under a file, in a folder that cannot be written).
    nines_sim.runs.folder_lock.FolderInUse
        (a RunSetupError) If another run is writing into the folder.
    nines_sim.runs.output.OutputExists
        If the folder holds files (without ``force``), is a file, or cannot be written.
    NothingKept
        If Ctrl-C reaches the body (e.g. while a Dask cluster starts), or the body raises it; the folder is
        removed if this call created it and it is still empty.
    """
    from nines_sim.runs.folder_lock import one_writer
    from nines_sim.runs.out_path import check_output_path
    from nines_sim.runs.output import check_dir, default_run_dir, discard_dir, make_dir

    if out is not None:
        run_dir = check_output_path(out, "--out", folder=True, default="a new folder under reports/")
        created = make_dir(run_dir)
    else:
        created = False
        while not created:  # another run may take the same new name in the same second
            run_dir = default_run_dir(kind)
            created = make_dir(run_dir)
    with ExitStack() as own:
        try:
            (own if held is None else held).enter_context(one_writer(run_dir))
            check_dir(run_dir, force)  # under the lock: another run's results are not overwritten without force
        except BaseException:
            discard_dir(run_dir, created)
            raise
        try:
            with hearing_ctrl_c():
                try:
                    yield run_dir
                except Exception as exc:
                    # an error after a Ctrl-C that was dropped where it was raised (numba's cache, writing a
                    # first run's compiled code) is the Ctrl-C's doing: the run stops as for the Ctrl-C
                    if ctrl_c_heard() and not isinstance(exc, NothingKept):
                        raise KeyboardInterrupt from exc
                    raise
        except KeyboardInterrupt:  # Ctrl-C before the run could hear it (e.g. while a Dask cluster starts)
            discard_dir(run_dir, created)
            raise NothingKept() from None
        except BaseException:
            discard_dir(run_dir, created)
            raise


@contextmanager
def writing() -> Iterator[None]:
    """Write the results whole: a further Ctrl-C while writing is ignored, not half-applied; one after it is said
    as coming after the results were written (:func:`nines_sim.runs.stages.stopped_words`)."""
    from nines_sim.runs.pool import Interrupt
    from nines_sim.runs.stages import WRITTEN_STOPPED, run_reached

    with Interrupt():
        yield
    run_reached(WRITTEN_STOPPED)


@contextmanager
def compute_backend(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client for ``scheduler`` (``tcp://HOST:8786`` or ``local``, a LocalCluster of ``workers``), or
    None for local processes.

    Raises
    ------
    nines_sim.runs.cluster.ClusterError
        If the cluster cannot be used (the message says why).
    """
    if not scheduler:
        yield None
        return
    from nines_sim.runs.cluster import connect

    with connect(scheduler, workers=workers) as client:
        yield client


@dataclass(frozen=True)
class Played:
    """What :func:`play_in_folder` played: the folder, the run's outcome, and how.

    Attributes
    ----------
    folder : pathlib.Path
        The run folder, checked writable and still without results.
    outcome : object
        What the experiment's run function returned (a tournament's or comparison's outcome).
    wanted : list of (int, int)
        The match indices asked for, half-open pairs.
    workers : int
        Worker processes.
    compile_seconds : float
        Seconds the run waited on the compiler.
    after : object
        What the ``after`` call of :func:`play_in_folder` returned (None without one).
    """

    folder: Path
    outcome: Any
    wanted: list[Range]
    workers: int
    compile_seconds: float
    after: Any = None


def play_in_folder(
    kind: str,
    play: Callable[[Any, Any, list[Range], int], Any],
    kept: Callable[[Any], int],
    *,
    units: int,
    matches: int,
    out: str | Path | None,
    force: bool,
    workers: int | None,
    ranges: str | None,
    scheduler: str | None,
    quiet: bool,
    held: ExitStack,
    after: Callable[[Any, int], Any] | None = None,
) -> Played:
    """Play an experiment's matches into a new run folder, on local processes or a Dask cluster, with a bar.

    Checks the scheduler and the ranges, makes the folder (:func:`run_folder`), then calls
    ``play(client, progress, wanted, workers)`` (``client`` None for local processes) under the progress bar.

    Parameters
    ----------
    kind : str
        The run's kind, naming a new folder (``tournament``, ``compare``).
    play : callable
        Runs the matches: ``(client, progress, wanted, workers) -> outcome``.
    kept : callable
        Matches an outcome kept; 0 means Ctrl-C stopped the run before any.
    units : int
        Games or rule sets, each playing the wanted matches (the bar counts ``units`` times them).
    matches, out, force, workers, ranges, scheduler, quiet
        As :func:`nines_sim.experiments.play_tournament` takes them.
    held : contextlib.ExitStack
        Holds the folder's lock once this call returns, until the caller has written the results and closes it
        (:func:`run_folder`): no other run writes into the folder in between.
    after : callable, optional
        ``after(client, workers)``: more play once the matches are kept and their bar closed, on the same
        local processes or Dask cluster (the design measures); what it returns is :attr:`Played.after`.

    Returns
    -------
    Played

    Raises
    ------
    RunSetupError, nines_sim.runs.ranges.RangesError, nines_sim.runs.output.OutputExists,
    nines_sim.runs.cluster.ClusterError
        Before any match, for arguments that cannot work.
    NothingKept
        If Ctrl-C stopped the run before any match was kept (the folder is removed if this call made it).
    """
    from nines_sim.runs.progress import RunProgress
    from nines_sim.runs.simulate import cpu_count

    n_workers = workers or cpu_count()
    check_scheduler(scheduler)
    wanted = ranges_wanted(ranges, matches)
    with run_folder(out, kind, force, held) as run_dir, ExitStack() as on_cluster:
        with RunProgress(ranges_total(wanted) * units, quiet) as bar:
            client = on_cluster.enter_context(compute_backend(scheduler, n_workers))
            outcome = play(client, bar, wanted, n_workers)
            if not kept(outcome):
                raise NothingKept()
        more = after(client, n_workers) if after is not None else None
    return Played(run_dir, outcome, wanted, n_workers, bar.compile_seconds, more)


def play_seconds(wall_seconds: float, compile_seconds: float) -> tuple[float, str]:
    """Seconds of play (the run's wall time less compiling, as the progress bar counts it), and a note of the
    compile time for a closing line ('' when nothing compiled)."""
    compiled = min(compile_seconds, wall_seconds)
    note = f" (+{compiled:.1f} s compiling, first run only)" if compiled else ""
    return wall_seconds - compiled, note


def kept_lines(out: Any) -> list[str]:
    """For a run Ctrl-C stopped (``out.partial``): the line naming the matches kept; else none."""
    if not out.partial:
        return []
    return [f"kept matches {format_ranges(out.kept)}; the kept_command in manifest.json plays exactly these again"]
