"""How ``nines train`` hears a Ctrl-C in the parts of a round: held until a round is recorded or the folder
written (never half-written), or cutting a round's fit short (computing only, it can take minutes)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def held_ctrl_c() -> Iterator[Any]:
    """A block that a Ctrl-C does not cut short (a round recorded, the folder written): one that comes meanwhile
    sets the yielded object's ``flag``, and is passed on after the block to the handler the caller had set
    (``nines train``'s stop flag); where Ctrl-C raised KeyboardInterrupt, the flag alone tells it."""
    from nines_sim.runs.pool import Interrupt

    with Interrupt() as held:
        yield held
    if held.flag and callable(held.previous) and held.previous is not signal.default_int_handler:
        caller = getattr(held.previous, "__self__", None)
        if not (isinstance(caller, Interrupt) and caller.flag):  # once stopping, no second Ctrl-C to raise on
            held.previous(signal.SIGINT, None)


@contextmanager
def ctrl_c_cuts(should_stop: Callable[[], bool]) -> Iterator[None]:
    """A block that a Ctrl-C cuts short, raising KeyboardInterrupt (a round's fit: computing only, nothing
    written); one that came before it (``should_stop``) raises at once.  The Ctrl-C is passed on first to the
    handler the caller had set (``nines train``'s stop flag, which prints that the run stops)."""
    if should_stop():
        raise KeyboardInterrupt
    previous = signal.getsignal(signal.SIGINT)

    def cut(signum: int, frame: Any) -> None:
        if callable(previous) and previous is not signal.default_int_handler:
            previous(signum, frame)
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, cut)
    except ValueError:  # not the main thread: Ctrl-C cannot reach this block
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
