"""What a tournament and a rule comparison add to their matches, the same way for both: the design measures
(``design=N``, ``--design N``: :mod:`nines_sim.experiments.design.setup`) played after the matches on the run's
processes or cluster, and the words of their command for these and for the luck taken out (``--luck``).

Each experiment keeps its own luck measure (a table's, :mod:`nines_sim.luck.tournament`; the rule sets',
:mod:`nines_sim.luck.compare`): they differ in what they fit and write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: Reserved matches the luck's value is fitted on, unless ``--luck-fit`` says otherwise (the command then names it).
LUCK_FIT = 4000


def design_after(
    sets: Callable[[], Sequence[Any]], n: int, skilled: str, weak: str, seed: int, batch_size: int, quiet: bool
) -> Callable[[Any, int], Any] | None:
    """The design part as a run's ``after`` (:func:`nines_sim.runs.runfolder.play_in_folder`): played after the
    matches on the run's processes or cluster, or None without it (``n == 0``).

    Parameters
    ----------
    sets : callable
        ``sets()``: the experiment's rule sets, each with ``label`` and ``rules`` (the first the paired reference).
    n, skilled, weak, seed, batch_size, quiet
        As :func:`nines_sim.experiments.design.setup.play_design`.
    """
    if not n:
        return None
    from nines_sim.experiments.design.setup import play_design

    def after(client: Any, n_workers: int) -> Any:
        return play_design(sets(), n, skilled, weak, seed, n_workers, batch_size, quiet, client)

    return after


def keep_design(run: Any, played: Any, n: int) -> None:
    """Keep the design part's frames on a played run (``run.design``), and whether Ctrl-C stopped it
    (``run.design_stopped``: its measures are not written); nothing without it (``n == 0``)."""
    if n:
        run.design = played.after
        run.design_stopped = run.design is None


def extra_words(design: int, skilled: str, weak: str, luck: bool, luck_fit: int) -> list[str]:
    """The words of a command that asks for these design measures (:func:`~nines_sim.experiments.design.setup.
    design_words`) and for the luck taken out (``--luck``, with ``--luck-fit`` when not :data:`LUCK_FIT`)."""
    from nines_sim.experiments.design.setup import design_words

    words = design_words(design, skilled, weak)
    if luck:
        words += ["--luck"] + (["--luck-fit", str(luck_fit)] if luck_fit != LUCK_FIT else [])
    return words


#: The manifest's ``luck.why`` of a ``--luck`` run stopped while playing: the luck is measured on whole runs only.
PARTIAL_LUCK = "stopped (Ctrl-C) before every match was played: the luck is taken out of a whole run only"


def kept_words(words: list[str]) -> list[str]:
    """The words of :func:`extra_words` for a partial run's ``kept_command``: without ``--luck`` (and
    ``--luck-fit``), which adjusts a whole run only (never with ``--ranges``) and was not measured on a partial one."""
    out, skip = [], 0
    for w in words:
        if skip or w in ("--luck", "--luck-fit"):
            skip = 1 if w == "--luck-fit" else 0
            continue
        out.append(w)
    return out
