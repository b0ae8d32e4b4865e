"""The short training run several test files train (``test_train_resume.py`` in Python; ``test_train_ctrl_c.py``,
its first two rounds, and ``test_train_dask.py`` by the command line), and its training ahead of the tests.

Each round's model compiles its own decision (about 5 s of processor time, on an empty cache), and the
training's own code more: :func:`main`, run by ``tests/conftest.py`` in a process of its own while the turn loop's
other forms build, trains this run once, so that those files load it all from numba's cache instead of compiling
it, one worker after the other or both at once.  A run here and a run there with the same settings are the same
run (the models' digests are the same; the tests check it), so nothing a test checks comes from here.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from nines_sim.learn.train import TrainSettings

#: Heads-up classic, seed 3: ``nines train --rounds 3 -n 4 --samples 2 --eval-matches 10 --keep 2 --seed 3``.
SEED = 3
SETTINGS = TrainSettings(rounds=3, matches=4, samples=2, eval_matches=10, keep=2)


def main() -> None:
    """Train the run into a temporary folder (deleted after); one line on stdout: ``processor seconds``."""
    from nines_sim.game.rules import make_rules
    from nines_sim.learn.train import train

    t0 = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        done = train(make_rules("classic", players=2), Path(folder) / "run", SEED, SETTINGS, "nines train (test)",
                     report=lambda line: None)  # fmt: skip
    if not done:
        sys.exit("the shared training run stopped before its last round")
    print(f"{time.process_time() - t0:.1f}", flush=True)


if __name__ == "__main__":
    main()
