"""``nines tune``'s closing line gives its trials per minute on the clock of the seconds beside it: this process's
trials over its wall time (it showed the manifest's rate, every process's trials over their own times, beside
this process's wall seconds: a new user's 3 trials in 45 s read 10 trials/min)."""

from __future__ import annotations

import json

from nines_sim.experiments.tune.study import StudyOutcome


def _line(tmp_path, ran: int, wall: float) -> str:  # noqa: ANN001
    best = {"strategy": "expert", "params": {"w_follow": 2.0}, "baseline": {"w_follow": 1.0}}
    (tmp_path / "best.json").write_text(json.dumps(best))
    manifest = {"trials_finished": 7, "trials_per_minute": 10.0}  # 7 of the study's trials, 10 a minute of trial time
    return StudyOutcome(tmp_path, None, None, manifest, ran, wall).summary()[-1]


def test_the_rate_beside_the_seconds_is_of_those_seconds(tmp_path):
    line = _line(tmp_path, 3, 45.0)
    assert line.startswith("7 trials (3 run by this process in 45.0 s; 4.00 trials/min); best expert(w_follow=2)")


def test_a_process_that_ran_no_trial_gives_no_rate(tmp_path):
    assert _line(tmp_path, 0, 0.2).startswith("7 trials (0 run by this process in 0.2 s); best ")
