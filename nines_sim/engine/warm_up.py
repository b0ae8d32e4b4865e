"""Loading the compiled turn loop into a process before it forks its workers (:func:`warm_up`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nines_sim.engine import seats
from nines_sim.engine import turn_loop as K
from nines_sim.game.rules import Rules


def warm_up(start_method: str | None = None, rules: Iterable[Rules | tuple[Rules, Sequence]] | None = ()) -> bool:
    """Load the compiled kernel into this process before it forks worker processes, so they inherit it.

    Each process otherwise loads the kernel's machine code from the cache on its first match (about half a
    second, paid again by every worker of every pool): with two workers on a run of a few seconds that alone
    kept two processes well below twice the speed of one.  A forked worker shares the parent's loaded code.

    Parameters
    ----------
    start_method : str, optional
        The worker pool's multiprocessing start method (default: this process's).  Only ``"fork"``
        shares memory with the parent; for ``spawn`` and ``forkserver`` nothing is done.
    rules : iterable of Rules or of (Rules, lineup), optional
        The rules the workers will play, each optionally with its lineup (strategy specs or instances):
        the form of the kernel each needs (:func:`kernel.slots_kernel`) is loaded, the form with
        ``expert`` inlined where the lineup seats one, and only those (loading a form no table plays costs
        half a second, and where it is not yet in the cache compiling it takes tens of seconds).  Default: the
        classic form only.  None: none (work that loads its own code before its workers fork, as a ``--luck``
        run, whose fit loads the trace form and the luck walk its chunks play).

    Returns
    -------
    bool
        Whether the kernel was loaded here (False for a start method other than fork).
    """
    import multiprocessing

    from nines_sim.engine.batch import CompiledEngine  # batch re-exports warm_up: imported here, not above

    method = start_method or multiprocessing.get_start_method(allow_none=False)
    if method != "fork" or rules is None:
        return False
    from nines_sim.results.tally import Tally
    from nines_sim.strategy.compiled_builtins import given
    from nines_sim.strategy.registry import make_lineup

    # every table shares one signature of each form of the kernel (user strategies are first-class functions
    # of DECIDE_SIG): one match under rules of each form needed loads it, and only those (a form not yet in
    # the cache would be compiled here, once, rather than by every worker at the same time)
    forms: dict[tuple[bool, bool], Rules] = {}
    tables = dict.fromkeys((x[0], tuple(x[1])) if isinstance(x, tuple) else (x, ()) for x in rules)
    for r, lineup in tables:
        expert = bool(lineup) and seats.heavy_seat(seats.seat_ids(make_lineup(list(lineup))))
        forms.setdefault((K.classic_shape(K.rules_params(r)), expert), r)
    heavy, light = given().heavy[0], given().light[0]  # any light built-in loads the forms without a heavy seat
    for (_, expert), r in forms.items() or [((True, False), Rules())]:
        players = ([heavy()] if expert else []) + [light()] * (r.players - int(expert))
        played = CompiledEngine(r, players, 0, 0, 1).run()
    Tally.from_results(played)  # the tally's compiled loops too, which every worker runs on what it plays
    return True
