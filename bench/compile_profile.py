"""Where a cold compile's time goes: run one ``nines`` command with an empty numba cache and say, by processor time,
which functions numba compiled, how long each took alone (its callees' compiles taken out) and which of numba's
passes took the time.

Usage: ``python bench/compile_profile.py [--json FILE] [--cache DIR] -- tournament -n 200 --workers 1 --quiet
--no-charts``.  The cache folder (``--cache``, default a new temporary one) is set as ``NUMBA_CACHE_DIR`` before
numba loads, so the command compiles whatever that folder lacks: run it twice on the same folder to see what a
second command compiles after the first (what it shares is loaded, not compiled).  Times are processor time
(``time.process_time``: user + system of this process), which a machine busy with other work leaves about as it
is, unlike the wall clock.  Every figure is this process's: run it with ``--workers 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--cache", help="numba cache folder (default: a new, empty temporary one)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the nines command, after --")
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    cache = a.cache or tempfile.mkdtemp(prefix="nines-numba-")
    os.environ["NUMBA_CACHE_DIR"] = cache

    from numba.core import event

    compiles: list[dict] = []
    passes: dict[str, float] = defaultdict(float)
    stack: list[list] = []  # [name, start cpu, cpu of nested compiles]
    pass_stack: list[list] = []

    class Compiles(event.Listener):
        def on_start(self, ev):  # noqa: ANN001, ANN202
            d = ev.data["dispatcher"]
            stack.append([getattr(d, "__name__", None) or d.py_func.__name__, time.process_time(), 0.0])

        def on_end(self, ev):  # noqa: ANN001, ANN202
            name, t0, nested = stack.pop()
            total = time.process_time() - t0
            if stack:
                stack[-1][2] += total
            compiles.append({"function": name, "cpu_s": total - nested, "cpu_with_callees_s": total,
                             "depth": len(stack), "args": str(ev.data.get("args"))})  # fmt: skip

    class Passes(event.Listener):
        def on_start(self, ev):  # noqa: ANN001, ANN202
            pass_stack.append([ev.data["name"], time.process_time(), 0.0])

        def on_end(self, ev):  # noqa: ANN001, ANN202
            name, t0, nested = pass_stack.pop()
            total = time.process_time() - t0
            if pass_stack:
                pass_stack[-1][2] += total
            passes[name] += total - nested

    event.register("numba:compile", Compiles())
    event.register("numba:run_pass", Passes())
    sys.argv = ["nines", *cmd]
    from nines_sim.cli import main as cli

    try:
        cli()
    except SystemExit as e:
        if e.code:
            raise
    ru = resource.getrusage(resource.RUSAGE_SELF)
    cpu = ru.ru_utime + ru.ru_stime
    out = {
        "command": "nines " + " ".join(cmd),
        "cache": cache,
        "process_cpu_s": cpu,
        "compile_cpu_s": sum(c["cpu_s"] for c in compiles),
        "compiles": sorted(compiles, key=lambda c: -c["cpu_s"]),
        "passes": dict(sorted(passes.items(), key=lambda kv: -kv[1])),
    }
    w = sys.stderr
    w.write(f"\n{out['command']}: {cpu:.1f} s CPU in all, {out['compile_cpu_s']:.1f} s of it compiling "
            f"({len(compiles)} functions compiled)\n")  # fmt: skip
    for c in out["compiles"]:
        if c["cpu_s"] >= 0.05:
            w.write(f"  {c['cpu_s']:7.2f} s  {'  ' * c['depth']}{c['function']}\n")
    w.write("numba's passes (CPU s, nested passes taken out):\n")
    for name, s in list(out["passes"].items())[:12]:
        w.write(f"  {s:7.2f} s  {name}\n")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
