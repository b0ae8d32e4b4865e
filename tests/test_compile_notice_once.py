"""A first run's progress bar says its compile notice once, on a line of its own, and then counts the seconds in
the bar: redrawn at every tick with the notice in it, the line repeated ``(first run only, then cached)`` down a
terminal that wrapped it (a new user's)."""

from __future__ import annotations

import io

from nines_sim.runs.progress import RunProgress
from tests.test_startup import Clock


def test_the_notice_is_written_once_however_often_the_bar_is_redrawn(monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr("sys.stderr", screen)
    clock = Clock()
    with RunProgress(100, clock=clock) as bar:
        bar.compiling("play_slots_classic", True)
        for _ in range(5):  # the ticker's redraws, by hand
            clock.now += 1.0
            bar._show()
        assert "compiling play_slots_classic: 5 s" in str(bar.bar)
        bar.compiling("play_slots_classic", True)  # a worker compiling the same form: not said again
        bar.compiling("play_slots_classic", False)
        bar.compiling("play_slots_classic", False)
        bar.compiling("play_slots_classic_expert", True)  # another form: said once too
        clock.now += 1.0
        bar._show()
        bar.compiling("play_slots_classic_expert", False)
        bar(100, 100)
    said = screen.getvalue()
    assert said.count("(first run only, then cached)") == 2
    assert "compiling play_slots_classic (first run only, then cached) ...\n" in said
    assert "compiling play_slots_classic_expert (first run only, then cached) ...\n" in said


def test_a_quiet_bar_says_nothing(monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr("sys.stderr", screen)
    with RunProgress(100, disable=True, clock=Clock()) as bar:
        bar.compiling("play_slots_classic", True)
        bar.compiling("play_slots_classic", False)
    assert screen.getvalue() == ""


def test_the_ticker_writes_each_second_of_a_compile_once(monkeypatch):
    """The ticker redraws twice a second; the line counts whole seconds, and into a log file (stderr not a
    terminal) each redraw is a line of its own: the same second was written twice."""
    screen = io.StringIO()
    monkeypatch.setattr("sys.stderr", screen)
    clock = Clock()
    with RunProgress(100, clock=clock) as bar:
        bar.compiling("play_slots_classic", True)
        for _ in range(6):  # the ticker's redraws, half a second apart
            clock.now += 0.5
            bar._show(changed_only=True)
        bar.compiling("play_slots_classic", False)
        bar(100, 100)
    said = screen.getvalue()
    assert [said.count(f"compiling play_slots_classic: {s} s") for s in range(4)] == [1, 1, 1, 1]
