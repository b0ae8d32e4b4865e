"""A Ctrl-C while a run that plays in this process compiles stops it at the next function numba starts to compile,
not after the whole compile: a first ``--luck`` or ``--draws log`` run's Ctrl-C took 17-19 s to stop, its flag
heard only once the form was built.  Driven by events: the unit hears SIGINT, then meets a function not yet
compiled (a fresh one, never in numba's cache); no clock."""

from __future__ import annotations

import signal

import numpy as np
from numba import njit

from nines_sim.runs.backends import Job, Local
from nines_sim.runs.pool import Interrupt

REACHED: list[int] = []


def _fresh_function():  # noqa: ANN202 - a numba dispatcher
    """A function numba has not compiled in this process (a new one each call: nothing in its cache)."""

    @njit
    def inner(x):  # noqa: ANN001, ANN202
        return x + 1

    @njit
    def outer(x):  # noqa: ANN001, ANN202 - compiling it compiles inner: a start between two compiles
        return inner(x) * 2

    return outer


#: The dispatchers the units compile, by key: a unit asked again after a stop meets the one it left half-compiled.
DISPATCHERS: dict[object, object] = {}


def unit(k: int, key: object = None, on_matches=None, should_stop=None):  # noqa: ANN001, ANN201 - module level
    if k == 0:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C, as the unit's first form starts compiling
    compiled = DISPATCHERS.setdefault(key if key is not None else object(), _fresh_function())
    assert compiled(np.int64(k)) == 2 * (k + 1)
    REACHED.append(k)
    return k


def test_a_ctrl_c_heard_before_a_compile_stops_the_unit_at_its_next_start_and_keeps_what_finished():
    REACHED.clear()
    taken: dict[int, object] = {}
    units = [(k, (k, "same")) for k in range(3)]
    job = Job(unit, units, lambda tag, got: taken.__setitem__(tag, got) or 0, notice="")
    assert Local(1).run(job) is True  # stopped by the Ctrl-C
    assert REACHED == [] and taken == {0: None}  # the unit's compile did not go on; nothing after it started
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is given back
    REACHED.clear()
    job = Job(unit, [(1, (1, "same"))], lambda tag, got: taken.__setitem__(tag, got) or 0)
    assert Local(1).run(job) is False
    assert REACHED == [1] and taken[1] == 1  # the function left half-compiled compiles again, and plays


def test_a_block_that_does_not_ask_for_it_compiles_on(monkeypatch):
    REACHED.clear()
    with Interrupt() as flag:
        unit(0)
    assert flag.flag and REACHED == [0]  # a flag alone: the compile went on, and what followed


def test_a_first_training_round_stops_at_the_next_compile_and_keeps_nothing(tmp_path, monkeypatch):
    """``nines train`` plays a run of one worker in this process: a Ctrl-C while its first round compiles (the
    sampler of ``--draws log``, the features) stops it there, exit 130, nothing written."""
    from typer.testing import CliRunner

    from nines_sim.cli import app

    def collecting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the round's self-play, compiling first
        unit(0)
        return None  # (reached only where the compile went on: a unit stopped keeps nothing)

    REACHED.clear()
    monkeypatch.setattr("nines_sim.learn.train.collect_unit", collecting)
    out = tmp_path / "train"
    res = CliRunner().invoke(app, ["train", "--rounds", "1", "-n", "2", "--samples", "2", "--eval-matches", "2",
                                   "--workers", "1", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 130, res.output
    assert "before round 1 finished: nothing was kept" in res.output
    assert REACHED == [] and not out.exists()


def unit_in_worker(k: int, on_matches=None, should_stop=None):  # noqa: ANN001, ANN201 - module level, for a pool
    """Unit 0 hears Ctrl-C (its worker's handler sets the pool's stop event), then compiles; unit 1 compiles
    nothing."""
    if k == 0:
        signal.raise_signal(signal.SIGINT)
        assert _fresh_function()(np.int64(k)) == 2 * (k + 1)
    return k


def test_a_worker_compiling_stops_at_its_next_compile_too():
    taken: dict[int, object] = {}
    job = Job(unit_in_worker, [(k, (k,)) for k in range(2)], lambda tag, got: taken.__setitem__(tag, got) or 0)
    assert Local(2).run(job) is True
    assert taken == {0: None, 1: 1}  # the worker's compile did not go on: its unit keeps nothing
