"""The progress bar of a run: matches played, matches kept, and an ETA only once it means something."""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from tqdm import tqdm

#: Share of a run's matches to be played, with a chunk kept, before the bar shows a remaining time:
#: until then the rate still holds the start (worker processes, imports, first deals) and the
#: ETA swings by hours.
ETA_AFTER = 0.02

_LEFT = "{l_bar}{bar}| {n_fmt}/{total_fmt} played{postfix} "
WITH_ETA = _LEFT + "[{elapsed}<{remaining}, {rate_fmt}]"
WITHOUT_ETA = _LEFT + "[{elapsed}, {rate_fmt}]"
#: While a form of the compiled code compiles (the first run only): which, and for how long so far.
COMPILING_FORMAT = "{desc}{postfix}"
#: Seconds between redraws of the compiling line (the run waits on the compiler meanwhile).
TICK_S = 0.5


def count_text(n: float) -> str:
    """A count of matches as the bar shows it: ``0``, ``999``, ``1.23k``, ``2k``, ``100k``, ``2.5M``.

    tqdm's ``unit_scale`` writes counts with two decimals (``0.00/100k``, ``2.00k``); matches are whole, so
    below 1,000 the count is exact and above it is cut (not rounded: ``99.9k`` until the 100,000th match) to
    at most 3 significant digits, without trailing zeros.
    """
    n = int(n)
    if n < 1000:
        return f"{n}"
    suffix = "k"
    for suffix in ("k", "M", "G"):  # noqa: B007 - the suffix the loop stops at is the one shown
        n /= 1000
        if n < 1000:
            break
    decimals = 0 if n >= 100 else 1 if n >= 10 else 2
    return f"{math.floor(n * 10**decimals) / 10**decimals:g}{suffix}"


class _MatchBar(tqdm):
    """A tqdm bar whose counts (``n_fmt``, ``total_fmt``) are whole numbers below 1,000; rates stay scaled."""

    @property
    def format_dict(self) -> dict[str, Any]:
        d = super().format_dict
        d["n_fmt"] = count_text(d["n"])
        if d.get("total") is not None:
            d["total_fmt"] = count_text(d["total"])
        return d


class RunProgress:
    """A tqdm bar counting matches as they finish, with the matches kept so far beside it.

    Called as ``progress(played, kept)`` (the ``on_progress`` of the runners).
    Played matches move the bar; kept ones are those the results will hold if
    the run stops now (whole chunks of a comparison, finished blocks of a
    tournament), shown as ``kept N``.

    Called as ``compiling(form, started)`` (see :mod:`nines_sim.runs.pool`) while a form of the compiled code
    compiles (the first run only, or after an edit), a line above the bar says so once (``compiling FORM
    (first run only, then cached) ...``), and the bar names the form with the seconds so far, instead of a
    rate; the time spent compiling is left out of the bar's elapsed time, rate and ETA, and summed in
    :attr:`compile_seconds`, so that what the bar shows is play.

    Parameters
    ----------
    total : int
        Matches the run plays, over all its games or rule sets.
    disable : bool
        No bar at all (``--quiet``); the compile time is still summed.
    clock : callable, optional
        Seconds, for the bar and the compile time alike (default: tqdm's own, ``time.time``); tests pass
        their own.
    counts_kept : bool
        False: no ``kept N`` beside the bar, for a run that keeps nothing until its end (a round of
        ``nines train``), where it would say ``kept 0`` throughout.

    Attributes
    ----------
    compile_seconds : float
        Seconds during which some form was compiling, in this process or a worker.
    """

    def __init__(self, total: int, disable: bool = False, clock: Callable[[], float] | None = None,
                 counts_kept: bool = True) -> None:  # fmt: skip
        self.total = total
        self.kept = 0
        self.eta = False
        self.compile_seconds = 0.0
        self._clock = clock or time.time
        self._kept_text = "kept 0" if counts_kept else ""
        self._forms: dict[str, int] = {}  # forms compiling now: how many processes compile each
        self._announced: set[str] = set()  # forms whose compile was said (once each)
        self._since: float | None = None
        self._lock = threading.RLock()
        self._ticker: threading.Event | None = None
        self.bar = _MatchBar(total=total, unit="match", unit_scale=True, disable=disable, desc="matches",
                        smoothing=0.1, bar_format=WITHOUT_ETA, postfix=self._kept_text or None)  # fmt: skip
        if clock is not None:
            self.bar._time = clock  # tqdm reads its clock there: one clock for play and compile time
            self.bar.start_t = self.bar.last_print_t = clock()

    def __call__(self, played: int, kept: int) -> None:
        with self._lock:
            self.kept += kept
            if not self.eta and self.kept and self.bar.n + played >= ETA_AFTER * self.total:
                self.eta = True
                if self._since is None:
                    self.bar.bar_format = WITH_ETA
            if kept:
                self._kept_text = f"kept {count_text(self.kept)}"
                if self._since is None:
                    self.bar.set_postfix_str(self._kept_text, refresh=False)
            self.bar.update(played)

    @property
    def compiling_now(self) -> list[str]:
        """The forms compiling now (empty while the run plays)."""
        return list(self._forms)

    def compiling(self, form: str, started: bool) -> None:
        """Hear that ``form`` started (``started``) or ended compiling, in this process or a worker.

        Parameters
        ----------
        form : str
            The compiled function's name, e.g. ``play_slots_classic``.
        started : bool
            True as it starts; False once it is compiled.
        """
        with self._lock:
            now = self._clock()
            if started:
                if form not in self._announced and not self.bar.disable:
                    # said once, on a line of its own: redrawn with the seconds at every tick, the notice was
                    # repeated down the screen wherever the terminal wrapped the bar's line
                    self._announced.add(form)
                    self.bar.write(f"compiling {form} (first run only, then cached) ...", file=sys.stderr)
                self._forms[form] = self._forms.get(form, 0) + 1
                if self._since is None:
                    self._since = now
                    self.bar.bar_format = COMPILING_FORMAT
                    self._start_ticker()
            elif form in self._forms:
                self._forms[form] -= 1
                if not self._forms[form]:
                    del self._forms[form]
                if not self._forms and self._since is not None:
                    self._play_again(now - self._since)
            self._show()

    def _play_again(self, seconds: float) -> None:
        """The last form compiled: leave its time out of the bar's clock and show the matches again."""
        self.compile_seconds += seconds
        self._since = None
        if self._ticker is not None:
            self._ticker.set()
            self._ticker = None
        if not self.bar.disable:  # tqdm's elapsed time, rate and ETA start again where play stopped
            self.bar.start_t += seconds
            self.bar.last_print_t += seconds
        self.bar.bar_format = WITH_ETA if self.eta else WITHOUT_ETA
        self.bar.set_postfix_str(self._kept_text, refresh=False)

    def _show(self, changed_only: bool = False) -> None:
        if self._since is not None:
            so_far = max(0, int(self._clock() - self._since))
            forms = ", ".join(self._forms)
            text = f"compiling {forms}: {so_far} s"
            # the ticker redraws twice a second but the line counts whole seconds: in a log file (stderr not a
            # terminal) each redraw is a line of its own, so the same second was written twice
            if changed_only and self.bar.postfix == text:
                return
            self.bar.set_postfix_str(text, refresh=False)
        self.bar.refresh()

    def _start_ticker(self) -> None:
        """Redraw the compiling line every :data:`TICK_S` (nothing else moves the bar meanwhile)."""
        if self.bar.disable:
            return
        stop = self._ticker = threading.Event()

        def tick() -> None:
            while not stop.wait(TICK_S):
                with self._lock:
                    if not stop.is_set():
                        self._show(changed_only=True)

        threading.Thread(target=tick, name="compiling-bar", daemon=True).start()

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            if self._since is not None:  # a run stopped while compiling
                self._forms.clear()
                self._play_again(self._clock() - self._since)
        self.bar.close()
        if exc[0] is None and self.kept:  # (a quiet bar counts nothing)
            from nines_sim.runs.stages import PLAYED_STOPPED, run_reached

            run_reached(PLAYED_STOPPED)
