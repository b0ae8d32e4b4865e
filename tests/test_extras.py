"""What a tournament and a rule comparison add to their matches, one piece of code for both
(:mod:`nines_sim.experiments.extras`): the design part as a run's ``after``, and the words of their command."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nines_sim.experiments import extras


@pytest.mark.parametrize(
    ("design", "luck", "luck_fit", "words"),
    [
        (0, False, 4000, []),
        (500, False, 9, ["--design", "500", "--skilled", "expert", "--weak", "random"]),
        (0, True, 4000, ["--luck"]),
        (200, True, 1000, ["--design", "200", "--skilled", "expert", "--weak", "random", "--luck", "--luck-fit",
                           "1000"]),
    ],
)  # fmt: skip
def test_the_command_names_the_design_measures_and_the_luck_it_asked_for(design, luck, luck_fit, words):
    assert extras.extra_words(design, "expert", "random", luck, luck_fit) == words


def test_the_design_part_plays_after_the_matches_on_the_runs_processes_and_is_kept(monkeypatch):
    import nines_sim.experiments.design.setup as design

    asked = []
    monkeypatch.setattr(design, "play_design", lambda *a: asked.append(a) or ("design", "distribution"))
    assert extras.design_after(lambda: ["sets"], 0, "expert", "random", 3, 64, True) is None
    after = extras.design_after(lambda: ["sets"], 50, "expert", "random", 3, 64, True)
    assert after("client", 2) == ("design", "distribution")
    assert asked == [(["sets"], 50, "expert", "random", 3, 2, 64, True, "client")]

    run = SimpleNamespace(design=None, design_stopped=False)
    extras.keep_design(run, SimpleNamespace(after=None), 50)  # Ctrl-C stopped the design part
    assert run.design is None and run.design_stopped
    extras.keep_design(run, SimpleNamespace(after=("d", "e")), 50)
    assert run.design == ("d", "e") and not run.design_stopped
    untouched = SimpleNamespace(design=None, design_stopped=False)
    extras.keep_design(untouched, SimpleNamespace(after=None), 0)
    assert not untouched.design_stopped
