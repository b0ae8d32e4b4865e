"""Run a command with a candidate heads-up classic model (and the leaf value fitted for it) in place of the shipped
files, in this process only: the package's files are not touched, so several candidates can be measured side by
side (each run with ``--workers 1``: the candidate is set in this process, not in worker processes).

``python ship.py CAND make MODEL.npz`` makes the folder ``CAND`` (``CAND/models``, ``CAND/values``: copies of the
shipped files, with ``classic-2.npz`` replaced by ``MODEL.npz``); then

- ``python ship.py CAND value`` fits the leaf value for it (``python -m nines_sim.learn.value_fit classic 2 learned``
  with the defaults, written to ``CAND/values/classic-2-learned.npz``, its ``model_digest`` the candidate's);
- ``python ship.py CAND nines ARGS...`` runs ``nines ARGS`` with them (``learned`` and ``policy=learned,
  leaf=learned`` play the candidate and its value; the run's manifest records their digests);
- ``python ship.py CAND run SCRIPT.py ARGS...`` runs a script (``../learned-search/speed.py``) with them.
"""

import runpy
import shutil
import sys
from pathlib import Path

import nines_sim.learn.model as model_mod
import nines_sim.learn.value as value_mod

cand, what, rest = Path(sys.argv[1]).resolve(), sys.argv[2], sys.argv[3:]

if what == "make":
    for sub, src in (("models", model_mod.SHIPPED), ("values", value_mod.SHIPPED)):
        (cand / sub).mkdir(parents=True, exist_ok=True)
        for f in src.glob("*.npz"):  # retired/ is not copied: only what `learned` may play
            shutil.copyfile(f, cand / sub / f.name)
    shutil.copyfile(rest[0], cand / "models" / "classic-2.npz")
    (cand / "values" / "classic-2-learned.npz").unlink()  # stale: fitted for the shipped model
    sys.exit(0)

model_mod.SHIPPED = cand / "models"
value_mod.SHIPPED = cand / "values"
if what == "value":
    from nines_sim.learn.value_fit import main

    sys.argv = ["value_fit", "classic", "2", "learned", *rest]
    import typer

    typer.run(main)
elif what == "nines":
    from nines_sim.console import main

    sys.argv = ["nines", *rest]
    sys.exit(main())
elif what == "run":
    sys.argv = rest
    runpy.run_path(rest[0], run_name="__main__")
else:
    sys.exit(f"unknown command {what!r}: make, value, nines or run")
