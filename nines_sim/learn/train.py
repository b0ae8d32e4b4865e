"""``nines train``: learn a model of one seat's decisions from the engine's own play, round after round.

Round 1 plays self-play matches with ``expert``'s moves and labels them with rollouts played by ``expert``
(a warm start: a copy of a search that rolls out with ``expert``).  Each later round plays the latest model
with exploration and labels with rollouts played by that model, so the targets are the model's own move
values (rollout policy iteration, the Monte-Carlo returns of DouZero with the hidden cards sampled from the
seat's observation).  Each round refits the weights on the last ``keep`` rounds' data and measures the new model
against ``expert`` (every seat in turn) and against the previous model, on fresh seeds.  The run folder holds
``model.npz`` (the best round's model against ``expert``), ``models/round-K.npz``, ``learning_curve.csv`` and
its chart, ``report.md`` and ``manifest.json`` with the command that trains it again.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from nines_sim import __version__
from nines_sim.game.rules import Rules
from nines_sim.learn.collect import KINDS, LABEL_DRAWS, RETURN_KINDS, TARGETS, Collector, Samples, rollout_strategy
from nines_sim.learn.fit import RIDGE, fit_card_model, fit_drawn, fit_ranker, fit_trees, pair_products
from nines_sim.learn.model import Model, load
from nines_sim.learn.report import write_report
from nines_sim.learn.resume import PROGRESS, checkpoint, data_path, resume_state
from nines_sim.learn.returns import RETURNS_BATCH, fit_with_returns
from nines_sim.learn.stops import ctrl_c_cuts, held_ctrl_c
from nines_sim.learn.strength import seat_wins
from nines_sim.learn.work import ModelFile, in_process
from nines_sim.results.stats import wilson

if TYPE_CHECKING:
    from nines_sim.runs.backends import Backend

#: The evaluation's seeds are this far from the training seed (fresh deals, never trained on).
EVAL_SEED_OFFSET = 1_000_003
#: A measure of at most this many matches plays the run's last model as a Python seat rather than compiling its
#: decision (each model's weights are constants of its compiled decision: 3-5 s of processor time).  Heads-up
#: classic, 2,000 matches took 0.93 s of processor time in Python against 0.46 s compiled (00:15 UTC, 7 Dec
#: 2026): the compile pays for itself after about 16,000 matches.
PYTHON_MEASURE = 10_000


@dataclass(frozen=True)
class TrainSettings:
    """What a training run does (the options of ``nines train``)."""

    rounds: int = 4
    matches: int = 100
    samples: int = 16
    epsilon: float = 0.1
    label_share: float = 1.0
    keep: int = 2
    hidden: int = 0
    #: Products of two features the card model adds to its linear score (chosen each round; 0: none).
    pairs: int = 40
    #: Regression trees the card model adds after its linear score and pairs (0: none), and their depth.
    trees: int = 0
    depth: int = 4
    eval_matches: int = 2000
    batch_size: int = 256
    #: Learn the drawn card's decision (T4); False keeps ``expert``'s rule for it (to measure what it is worth).
    drawn: bool = True
    #: What labels the decisions (:data:`~nines_sim.learn.collect.TARGETS`): rollouts of every candidate, the
    #: realised returns of the moves made (:mod:`nines_sim.learn.returns`), or both.
    targets: str = "rollouts"
    #: How the rollouts' sampled worlds read the draws (:data:`LABEL_DRAWS`): the suits each seat drew on, or its
    #: draw log (``lookahead:draws=log``'s sampler).
    draws: str = "suits"

    def __post_init__(self) -> None:
        if self.targets not in TARGETS:
            raise ValueError(f"targets must be one of {', '.join(TARGETS)}, not {self.targets!r}")
        if self.draws not in LABEL_DRAWS:
            raise ValueError(f"draws must be one of {', '.join(LABEL_DRAWS)}, not {self.draws!r}")
        if self.trees and (self.hidden or self.targets != "rollouts"):
            raise ValueError("trees are fitted after a linear card model on rollout labels (no hidden layer)")


def play_collection(rules: Rules, collector: Collector, seed: int, start: int, n: int, batch_size: int,
                    should_stop: Callable[[], bool], on_matches: Any = None) -> bool:  # fmt: skip
    """Self-play matches ``start .. start+n-1`` of ``seed`` with ``collector`` at every seat; False if stopped.
    A collector that logs returns has them labelled from the matches' hands at the end.  ``on_matches(played,
    kept)``, if given: the matches finished since the last call (a progress bar's; none is kept before the end)."""
    from nines_sim.engine.batch import make_engine

    engine = make_engine(rules, [collector] * rules.players, seed, start, n, batch_size)
    engine.start_run()
    reported = 0
    while engine.B:
        engine.advance()
        if on_matches is not None and engine.matches_done > reported:
            on_matches(engine.matches_done - reported, 0)
            reported = engine.matches_done
        if should_stop():
            return False
    if collector.log is not None:
        collector.labelled += collector.log.label(collector.data, engine.results().hand_records, seed, rules.players)
    return True


def strength(rules: Rules, spec: str, against: str, n: int, seed: int, backend: Backend | None = None,
             in_python: bool = False) -> tuple[float, float, float]:  # fmt: skip
    """``spec``'s win rate with every other seat ``against``, ``spec`` in each seat in turn (``n // players``
    matches in each, at least one: n rounded down to a multiple of the table size): (rate, low, high), a
    Wilson 95% interval.  With a ``backend`` (:func:`on_backend`) each seat's matches are a unit of work there;
    the numbers are the same.  With ``in_python`` a model ``spec`` plays as a
    Python seat (:class:`~nines_sim.learn.python_seat.PythonLearned`): the same matches, its decision not
    compiled."""
    P = rules.players
    per = max(1, n // P)
    mine, theirs = ModelFile.portable(spec, in_python), ModelFile.portable(against)
    units = []
    for seat in range(P):
        lineup = [theirs] * P
        lineup[seat] = mine
        units.append((seat, (rules, tuple(lineup), seed, seat * per, per, seat)))
    if not in_process(backend) and not in_python:
        # one match here first compiles each model's decision once, into this process (forked workers inherit
        # it, and the next round's rollouts are played by this model) and numba's disk cache (where workers on
        # this machine load it), not once in every worker at the same time
        seat_wins(rules, units[0][1][1], seed, 0, 1, 0)
    wins = sum(_run_units(seat_wins, rules, units, backend, finish=True))
    total = per * P
    low, high = wilson(wins, total)
    return wins / total, low, high


# -- the heavy parts of a round as units of work: in this process, or on a backend of the run driver (local
# worker processes, a Dask cluster), with the same numbers


#: What the first Ctrl-C prints at once: the run stops at its next step.
STOP_NOTICE = "Stopping (Ctrl-C): the rounds that finished are kept; the same command continues after them."


def collect_unit(rules: Rules, model: ModelFile | None, s: TrainSettings, seed: int, start: int, n: int, *,
                 on_matches: Any = None, should_stop: Callable[[], bool] = lambda: False
                 ) -> tuple[Samples, int] | None:  # fmt: skip
    """A unit of a round's self-play: matches ``start .. start+n-1`` played and labelled by a :class:`Collector`
    of ``model`` (None: ``expert``, the first round); None when stopped.

    Returns
    -------
    (Samples, int) or None
        The labelled decisions and their number.
    """
    path = None if model is None else model.local()
    # round 1's moves are expert's; rollouts label every candidate, returns only those explored
    explore = s.epsilon if path is not None or s.targets != "rollouts" else 0.0
    collector = Collector(None if path is None else load(path), rollout_strategy(path), s.samples, explore,
                          s.label_share, s.targets, s.draws)  # fmt: skip
    # each unit labels its returns from its own engine's hand records (the hand keys are global by match index)
    batch = s.batch_size if collector.rollouts else max(s.batch_size, RETURNS_BATCH)
    if not play_collection(rules, collector, seed, start, n, batch, should_stop, on_matches):
        return None
    return collector.data, collector.labelled


@dataclass
class Collected:
    """A round's self-play (:func:`collect_round`).

    Attributes
    ----------
    data : Samples or None
        The labelled decisions in canonical order (:meth:`Samples.merged`); None when a stop cut the play short.
    labelled : int
        Decisions labelled.
    """

    data: Samples | None
    labelled: int = 0


def collect_round(rules: Rules, model: Path | None, s: TrainSettings, seed: int, rnd: int, backend: Backend | None,
                  should_stop: Callable[[], bool], on_matches: Any = None) -> Collected:  # fmt: skip
    """Round ``rnd``'s self-play, matches ``(rnd-1) * s.matches ..``, by the latest ``model`` (None: ``expert``):
    in this process (``backend`` None), or cut into one block of matches per worker of ``backend``.  The
    labelled decisions do not depend on the cut (:meth:`Samples.merged`)."""
    start = (rnd - 1) * s.matches
    ref = None if model is None else ModelFile.portable(f"learned@{model}")
    assert not isinstance(ref, str)
    if in_process(backend):
        got = collect_unit(rules, ref, s, seed, start, s.matches, on_matches=on_matches, should_stop=should_stop)
        return Collected(None) if got is None else Collected(Samples.merged([got[0]]), got[1])
    assert backend is not None
    # one block per worker: each engine's step is a call into Python for the games waiting on a decision, and
    # blocks of fewer matches take about as many steps with fewer games each (heads-up, 300 matches a round, on 2
    # workers, one run each: four blocks took 1.28 times the CPU of one engine, two blocks 1.10)
    size = max(1, -(-s.matches // max(1, backend.workers)))
    units = [(b, (rules, ref, s, seed, start + b, min(size, s.matches - b))) for b in range(0, s.matches, size)]
    got = _run_units(collect_unit, rules, units, backend, on_progress=on_matches)
    # a stop heard as the last blocks came back leaves the round unfinished: its rows are not merged (seconds of
    # sorting on millions of rows) to be dropped
    if any(g is None for g in got) or should_stop():
        return Collected(None)
    return Collected(Samples.merged([g[0] for g in got]), sum(g[1] for g in got))


#: CPU seconds units spent in other processes (worker processes, Dask workers) since a run last took them, and
#: whether a Ctrl-C came while units ran there.
_elsewhere = {"cpu": 0.0, "ctrl_c": False}


def _timed(fn: Callable, *args: Any, on_matches: Any = None, should_stop: Callable[[], bool] = lambda: False
           ) -> tuple[Any, float, int]:  # fmt: skip
    """``fn``'s result on a unit, the CPU seconds of its thread and the process it ran in."""
    cpu = time.thread_time()
    value = fn(*args, on_matches=on_matches, should_stop=should_stop)
    return value, time.thread_time() - cpu, os.getpid()


def cpu_elsewhere() -> float:
    """The CPU seconds units spent in other processes since the last call (a run's cost counts its workers')."""
    taken, _elsewhere["cpu"] = _elsewhere["cpu"], 0.0
    return taken


def _ctrl_c_heard() -> bool:
    """Whether a Ctrl-C came while units ran on a backend, since the last call."""
    heard, _elsewhere["ctrl_c"] = _elsewhere["ctrl_c"], False
    return bool(heard)


def _run_units(fn: Callable, rules: Rules, units: list[tuple[Any, tuple]], backend: Backend | None,
               finish: bool = False, on_progress: Any = None) -> list:  # fmt: skip
    """The results of ``fn`` on every unit, in the units' order: in this process, or on ``backend``.

    There a Ctrl-C stops the units that heed it (their result None; with ``finish``, a unit that did not run there
    runs here after it: a measure ends its round) and is passed on to the caller's stop flag (``nines train``'s
    :class:`~nines_sim.runs.pool.Interrupt`, else :func:`_ctrl_c_heard`): the run stops after this round.
    """
    if in_process(backend):
        return [fn(*args) for _, args in units]
    from nines_sim.runs.backends import Job
    from nines_sim.runs.pool import Interrupt

    assert backend is not None
    results: dict[Any, Any] = {}

    def take(tag: Any, got: Any) -> int:
        if got is not None:
            value, cpu, pid = got
            _elsewhere["cpu"] += cpu if pid != os.getpid() else 0.0
            results[tag] = value
        return 0

    caller = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
    if backend.run(Job(_timed, [(tag, (fn, *args)) for tag, args in units], take, on_progress=on_progress,
                       warm=[rules], notice=STOP_NOTICE)):  # fmt: skip
        _elsewhere["ctrl_c"] = True
        if isinstance(caller, Interrupt):  # the backend heard it in its place, and said so
            caller.flag = True
    if finish:
        for tag, args in units:
            if results.get(tag) is None:
                results[tag] = fn(*args)
    return [results.get(tag) for tag, _ in units]


def train(rules: Rules, out: Path, seed: int, settings: TrainSettings, command: str,
          report: Callable[[str], None] = print, should_stop: Callable[[], bool] = lambda: False,
          kept_command: Callable[[int], str] | None = None, backend: Backend | None = None,
          round_bar: Callable[[int], Any] | None = None, charts: bool = True) -> bool:  # fmt: skip
    """Train a model into the run folder ``out`` (see the module docstring).

    Parameters
    ----------
    rules : Rules
        The rules and table size to learn for.
    out : pathlib.Path
        The run folder (created).
    seed : int
        Training matches are matches ``(round-1) * matches ..`` of this seed; evaluations use fresh seeds.
    settings : TrainSettings
    command : str
        The command line that reproduces the run (into the manifest and the model).
    report : callable
        Called with a line of progress after each round.
    should_stop : callable
        Asked before each round, after every step of its self-play and before its fit; True stops after the
        rounds finished (Ctrl-C).  A Ctrl-C while a round's model is fitted cuts the fit short (it is computing
        only, and can take minutes): that round is not kept.  Once fitted, its measure (seconds) finishes and the
        round is kept before the stop.  (A KeyboardInterrupt while a round plays, fits or measures stops it too,
        unkept: ``nines train`` raises it on a second Ctrl-C.)  A Ctrl-C while a round is recorded or the folder
        written is heard after it: the folder is never left half-written.
    kept_command : callable, optional
        ``kept_command(k)``: the command that trains exactly the first ``k`` rounds (the manifest's
        ``kept_command`` of a stopped run).
    backend : nines_sim.runs.backends.Backend, optional
        Where each round's self-play and measurement play (:func:`on_backend`: worker processes or a Dask cluster);
        None: this process.  The models and the curve are the same (CPU seconds apart).  There a Ctrl-C stops the
        self-play (``should_stop`` is asked between the steps here only).
    round_bar : callable, optional
        ``round_bar(rnd)``: a progress bar for round ``rnd``'s self-play, a context manager called as
        ``bar(played, kept)`` as its matches finish, such as :class:`nines_sim.runs.progress.RunProgress`.
    charts : bool
        Draw ``learning_curve.png`` (False: none, and a stopped run's removed; ``nines train --no-charts``).

    Returns
    -------
    bool
        False when stopped early: the folder keeps the finished rounds (report PARTIAL, ``progress.json`` for the
        same command to continue after them); with no round finished, nothing is written and the folder holds
        nothing of the run.
    """
    (out / "models").mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    s = settings
    state = resume_state(out, seed, rules, s)
    rows: list[dict] = state["rows"]
    best: tuple[float, int] = tuple(state["best"])  # type: ignore[assignment]
    done = len(rows)
    prev_path: Path | None = out / "models" / f"round-{done}.npz" if done else None
    history = [Samples.load(data_path(out, r)) for r in range(max(1, done - s.keep + 1), done + 1)]
    cpu0 = time.process_time() - state["cpu_seconds"]
    cpu_elsewhere(), _ctrl_c_heard()  # nothing of an earlier run in this process
    from nines_sim.learn import compile_ahead as ahead

    if done < s.rounds and _plays_here(backend):
        # round 1's first decision needs the features and the sampler: built on two cores, before workers fork
        ahead.prepare(rules, sampler=s.targets != "returns", pool=not in_process(backend))
    finished = True
    for rnd in range(done + 1, s.rounds + 1):
        if should_stop():  # before the round (or between two): nothing of it is played
            finished = False
            break
        try:
            # a round's self-play is most of its time: the bar shows it moving
            with round_bar(rnd) if round_bar is not None else nullcontext() as bar:
                collector = collect_round(rules, prev_path, s, seed, rnd, backend, should_stop, bar)
            if collector.data is None:
                finished = False
                break
            ahead.sampler_ready()  # a second process still building it (a round that sampled nothing)
            _elsewhere["cpu"] += ahead.second_cpu()
            history = [*history, collector.data][-s.keep :]
            cpu0 -= cpu_elsewhere()
            meta = {"command": command, "round": rnd, "seed": seed, "cpu_seconds": round(time.process_time() - cpu0, 1)}
            with ctrl_c_cuts(should_stop):  # a fit of millions of rows takes minutes on a busy machine
                model = _fit(history, rules, s, seed, rnd, meta)
            path = out / "models" / f"round-{rnd}.npz"
            model.save(path)
            row = _measure(rules, path, prev_path, s.eval_matches, seed, rnd, backend, rnd == s.rounds)
            cpu0 -= cpu_elsewhere()
        except KeyboardInterrupt:  # Ctrl-C: the rounds that finished are kept; this one leaves nothing
            (out / "models" / f"round-{rnd}.npz").unlink(missing_ok=True)
            finished = False
            break
        with held_ctrl_c() as late:  # recorded whole: a Ctrl-C meanwhile stops after this round
            row = {"round": rnd, "cpu_seconds": round(time.process_time() - cpu0, 1),
                   "decisions_labelled": collector.labelled, **row}  # fmt: skip
            rows.append(row)
            if row["vs_expert"] > best[0]:
                best = (row["vs_expert"], rnd)
            prev_path = path
            checkpoint(out, collector.data, rows, best, seed, rules, s)
            report(
                f"round {rnd}/{s.rounds}: {collector.labelled:,} decisions labelled; against expert "
                f"{row['vs_expert']:.3f} [{row['vs_expert_low']:.3f}, {row['vs_expert_high']:.3f}]"
                + ("" if rnd == 1 else f", against round {rnd - 1} {row['vs_previous']:.3f}")
                + f"; {row['cpu_seconds']:.0f} CPU s"
            )
        if late.flag or should_stop() or _ctrl_c_heard():
            finished = rnd == s.rounds
            break
    with held_ctrl_c():  # the folder is written whole, or (no round finished) left as it was found
        if not rows:  # stopped before round 1 finished: nothing to keep, nothing written
            shutil.rmtree(out / "data", ignore_errors=True)
            if (out / "models").is_dir() and not any((out / "models").iterdir()):
                (out / "models").rmdir()
            return False
        kept = None if finished or kept_command is None else kept_command(len(rows))
        _write(out, rows, best, command, seed, rules, s, finished, kept, charts)
        if finished:  # the labelled data serve only a resumed run
            shutil.rmtree(out / "data", ignore_errors=True)
            (out / PROGRESS).unlink(missing_ok=True)
    return finished


def _plays_here(backend: Backend | None) -> bool:
    """Whether the units play on this machine (this process or its worker processes, not a Dask cluster)."""
    from nines_sim.runs.backends import Local

    return backend is None or isinstance(backend, Local)


def _fit(history: list[Samples], rules: Rules, s: TrainSettings, seed: int, rnd: int, meta: dict) -> Model:
    """A round's model, fitted on the labelled decisions of ``history`` (the last ``keep`` rounds)."""
    data = {}
    for which in KINDS + RETURN_KINDS:
        parts = [d.arrays(which) for d in history]
        offsets = np.cumsum([0] + [d.groups for d in history])
        data[which] = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                       np.concatenate([p[2] + o for p, o in zip(parts, offsets, strict=False)]))  # fmt: skip
    if s.targets != "rollouts":
        cw, pairs, pw, ws, dw = fit_with_returns(data, s.pairs)
        return Model(cw, ws, rules, meta, drawn_weights=dw if s.drawn else np.zeros(0), pair_index=pairs,
                     pair_weights=pw)  # fmt: skip
    card = fit_card_model(*data["card"], s.hidden, seed + rnd, s.pairs)
    drawn = fit_drawn(*data["drawn"][:2], RIDGE) if s.drawn else np.zeros(0)
    trees = ()
    if s.trees and data["card"][0].shape[0]:  # boosted on what the linear score and the pairs leave
        x, y, g = data["card"]
        score = x @ card[0] + pair_products(x, card[4]) @ card[5]
        trees = fit_trees(x, y, g, score, s.trees, s.depth, seed + rnd)
    return Model(card[0], fit_ranker(*data["suit"], RIDGE), rules, meta, *card[1:4], drawn, *card[4:], *trees)


def _measure(rules: Rules, path: Path, prev_path: Path | None, n: int, seed: int, rnd: int,
             backend: Backend | None = None, last: bool = False) -> dict:  # fmt: skip
    """A round's model against ``expert`` and against the previous round's, on fresh seeds (the curve's columns).
    The run's ``last`` round's model plays as a Python seat up to :data:`PYTHON_MEASURE` matches: the same
    matches, without compiling its decision, which no later round plays (unless it is built already)."""
    spec = f"learned@{path}"
    in_python = last and n <= PYTHON_MEASURE and not _decision_built(path)
    rate, low, high = strength(rules, spec, "expert", n, seed + EVAL_SEED_OFFSET + rnd, backend, in_python)
    prev = (np.nan, np.nan, np.nan)
    if prev_path is not None:
        prev = strength(rules, spec, f"learned@{prev_path}", n, seed + 2 * EVAL_SEED_OFFSET + rnd, backend,
                        in_python)  # fmt: skip
    return {"vs_expert": rate, "vs_expert_low": low, "vs_expert_high": high,
            "vs_previous": prev[0], "vs_previous_low": prev[1], "vs_previous_high": prev[2]}  # fmt: skip


def _measured_files(out: Path, rows: list[dict], rules: Rules) -> dict:
    """The manifest's learned files (:mod:`nines_sim.runs.learned_files`): each kept round's model, as its strength
    checks played it (``learned@`` the round's file) and with its digest."""
    from nines_sim.runs.learned_files import learned_files, manifest_field

    specs = ["learned@" + str(out / "models" / f"round-{r['round']}.npz") for r in rows]
    return manifest_field(learned_files(specs, rules))


def _decision_built(path: Path) -> bool:
    """Whether the compiled decision of the model in ``path`` is built already (in this process or numba's disk
    cache: a run trained again with the same seed), so that its measure plays it compiled."""
    from nines_sim.learn.decide import decide_for
    from nines_sim.strategy.per_game_compiled import callback_built

    return callback_built(decide_for(load(path)))


def _write(out: Path, rows: list[dict], best: tuple[float, int], command: str, seed: int, rules: Rules,
           s: TrainSettings, finished: bool, kept_command: str | None = None, charts: bool = True) -> None:  # fmt: skip
    """The run folder's files: the chosen model, the curve, the manifest, then the chart (unless not ``charts``:
    then none, an earlier run's removed) and report drawn from them (:func:`write_report`)."""
    from nines_sim.runs.output import remove_files, write_manifest

    pd.DataFrame(rows).to_csv(out / "learning_curve.csv", index=False)
    if rows:
        chosen = out / "models" / f"round-{best[1]}.npz"
        (out / "model.npz").write_bytes(chosen.read_bytes())
    data = {
        "command": command, "version": __version__, "seed": seed, "preset": rules.preset,
        "rules": rules.options() | {"hand_sizes": list(rules.hand_sizes)}, "players": rules.players,
        "settings": s.__dict__, "partial": not finished, "kept_command": kept_command, "rounds_finished": len(rows),
        "chosen_round": best[1] if rows else None,
        "cpu_seconds": rows[-1]["cpu_seconds"] if rows else 0.0, "python": platform.python_version(),
        "numpy": np.__version__, "platform": sys.platform,
    }  # fmt: skip
    data |= _measured_files(out, rows, rules)
    write_manifest(out, json.loads(json.dumps(data, default=str)), files=["learning_curve.csv", "model.npz"]
                   if rows else ["learning_curve.csv"])  # fmt: skip
    if not charts:  # a stopped run's chart, resumed here, shows fewer rounds than the folder now holds
        remove_files(out, ["learning_curve.png"])
    write_report(out, charts)
