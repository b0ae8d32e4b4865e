"""A training run's own compiled code built before its first round, on two cores: the sampler of hidden hands in
a second process while this one builds the batch features (issue 42).

Round 1's first labelled decision needs both: the features of its candidates (``batch_card_features``,
``batch_suit_features``, 4-5 s of processor time to compile) and then the sampled worlds its rollouts play
(``deal_samples_one_hidden`` heads-up, ``deal_samples`` at three seats or more: 4-10 s).  The turn loop's forms
they run beside are the default tournament's, already in numba's cache.  Compiled one after the other in the
run's process they cost their sum on the clock; here the sampler compiles in a process of its own meanwhile,
into numba's disk cache, where the run (and its forked workers) then load it.  A run on worker processes builds
what is missing before they fork, where each would compile it at the same time.  Each is built by a one-match
table whose Python seat asks for it once on a real observation, so that it is compiled for the very signature
training asks for (``tests/test_train_forms.py`` counts them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.engine.build_forms import cached as in_cache
from nines_sim.strategies.expert import Expert
from nines_sim.strategy.base import Observation

if TYPE_CHECKING:
    from nines_sim.game.rules import Rules


def sampler_functions(players: int) -> list[Any]:
    """The sampler's compiled forms a run at ``players`` seats meets: one hidden seat heads-up, else the full
    form and (a seat out, the others' hands known) the one-hidden one."""
    from nines_sim.search.sample_deal import deal_samples, deal_samples_one_hidden

    return [deal_samples_one_hidden] if players <= 2 else [deal_samples, deal_samples_one_hidden]


def feature_functions() -> list[Any]:
    """The batch features a run's labelling computes (a candidate card's, a suit's)."""
    from nines_sim.learn.features import batch_card_features, batch_suit_features

    return [batch_card_features, batch_suit_features]


class _Probe(Expert):
    """``expert``'s moves; asked for its first play, it first runs ``work`` on the observation."""

    name = "compile-ahead"

    def __init__(self, work: Callable[[Observation], Any]) -> None:
        super().__init__()
        self.work, self.asked = work, False

    def play(self, obs: Observation) -> np.ndarray:
        if not self.asked:
            self.work(obs)
            self.asked = True
        return super().play(obs)


def _first_decision(rules: Rules, work: Callable[[Observation], Any]) -> None:
    """Play a one-match table under ``rules`` until its probe seat has run ``work`` once (on the turn loop's form
    a training run plays under them: a table of Python seats plays the ``expert`` form of its rules' shape)."""
    from nines_sim.engine.batch import make_engine

    probe = _Probe(work)
    engine = make_engine(rules, [probe] + [Expert() for _ in range(rules.players - 1)], 0, 0, 1, 1)
    engine.start_run()
    while engine.B and not probe.asked:
        engine.advance()


def build_sampler(rules: Rules) -> None:
    """Compile (or load) the sampler's form a table under ``rules`` meets first (one hidden seat heads-up, the full
    form at more seats) in this process."""
    from nines_sim.search.sampler import sample_positions

    _first_decision(rules, lambda obs: sample_positions(obs, 2, 0, 1.0))


def build_features(rules: Rules) -> None:
    """Compile (or load) the batch features of :func:`feature_functions` in this process, on a table under
    ``rules`` (their signatures are the same under any)."""
    from nines_sim.learn.decide import candidate_features, observation_arrays
    from nines_sim.learn.features import NFS, batch_suit_features

    def work(obs: Observation) -> None:
        candidate_features(np.zeros(NFS), obs)
        a = observation_arrays(obs)
        batch_suit_features(a["h0"], a["h1"], a["played"], a["sizes"], a["drew_on"], a["seat"], a["dirbit"])

    _first_decision(rules, work)


def _build_sampler_classic(players: int) -> None:
    """The second process's work: the sampler's forms of :func:`sampler_functions`, on classic tables (whose
    ``expert`` form the default tournament built)."""
    from nines_sim.game.rules import make_rules

    build_sampler(make_rules("classic", players=players))
    if players > 2:  # a seat out, the others' hands known: the one-hidden form, which a heads-up table meets
        build_sampler(make_rules("classic", players=2))


#: The second process building the sampler while this one goes on, and the children's processor time before it.
_building: list[tuple[subprocess.Popen, float]] = []
#: Processor seconds of second processes waited for, not yet taken by a run (:func:`second_cpu`).
_waited = [0.0]


def _children_cpu() -> float:
    """Processor seconds of this process's finished children (0.0 where the platform does not say)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0.0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def prepare(rules: Rules, sampler: bool = True, pool: bool = False) -> None:
    """Build what a training run under ``rules`` compiles beyond the turn loop's forms, where numba's cache lacks
    it: the sampler (unless ``sampler`` is False: a run labelled by returns plays no rollouts) in a second process
    while this one builds the features (a second process's failure is not fatal: the run then compiles what it
    lacks as it goes).  A run in this process goes on meanwhile (under rules of the general shape it compiles its
    turn loop's form next) and waits for it before its first sample (:func:`sampler_ready`); a run on a ``pool``
    of worker processes waits here, before they fork.  The second process plays classic tables, so it runs only
    where their form is in the cache (else it would compile it too, beside this process).  Otherwise, what is
    missing is built here only for a pool, whose workers would each compile it at the same time; a run in this
    process compiles it as it meets it, as before.

    Its processor seconds are the run's (:func:`second_cpu`).
    """
    from nines_sim.engine.turn_loop import play_slots_classic_expert

    need_sampler = sampler and not all(in_cache(f) for f in sampler_functions(rules.players))
    need_features = not all(in_cache(f) for f in feature_functions())
    second = need_sampler and need_features and (os.cpu_count() or 1) >= 2 and in_cache(play_slots_classic_expert)
    if not second:
        if pool and need_features:
            build_features(rules)
        if pool and need_sampler:
            build_sampler(rules)
        return
    before = _children_cpu()
    child = subprocess.Popen([sys.executable, "-m", "nines_sim.learn.compile_ahead", str(rules.players)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    _building.append((child, before))
    try:
        build_features(rules)
    except BaseException:  # a Ctrl-C here ends the second process too (what it finished stays in the cache)
        sampler_ready()
        raise
    if pool:
        sampler_ready()


def sampler_ready() -> None:
    """Wait for a sampler still building in a second process (:func:`prepare`), if one is."""
    while _building:
        child, before = _building.pop()
        child.wait()
        _waited[0] += _children_cpu() - before


def second_cpu() -> float:
    """The processor seconds of the second processes waited for since the last call (a run's cost counts them)."""
    taken, _waited[0] = _waited[0], 0.0
    return taken


if __name__ == "__main__":
    _build_sampler_classic(int(sys.argv[1]))
