"""Where a cold compile's time goes: run one ``nines`` command with an empty numba cache and say, by processor time,
which functions numba compiled, how long each took alone (its callees' compiles taken out) and which of numba's
passes took the time.

Usage: ``python bench/compile_profile.py [--json FILE] [--cache DIR] -- tournament -n 200 --workers 1 --quiet
--no-charts``.  The cache folder (``--cache``, default a new temporary one) is set as ``NUMBA_CACHE_DIR`` before
numba loads, so the command compiles whatever that folder lacks: run it twice on the same folder to see what a
second command compiles after the first (what it shares is loaded, not compiled).  Times are processor time
(``time.process_time``: user + system of this process), which a machine busy with other work leaves about as it
is, unlike the wall clock.  Every figure is this process's: run it with ``--workers 1``; but a ``--luck`` run's
building processes (:class:`nines_sim.engine.build_forms.BuildForms`, forked from this one) each say theirs too: their
work, processor time, the functions each compiled and when (seconds from this process's start), and any function
compiled in more than one process (each compile of it costs a core).
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
from pathlib import Path


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
            stack.append([getattr(d, "__name__", None) or d.py_func.__name__, time.process_time(), 0.0, time.time()])

        def on_end(self, ev):  # noqa: ANN001, ANN202
            name, t0, nested, wall = stack.pop()
            total = time.process_time() - t0
            if stack:
                stack[-1][2] += total
            compiles.append({"function": name, "cpu_s": total - nested, "cpu_with_callees_s": total,
                             "depth": len(stack), "args": str(ev.data.get("args")),
                             "at_s": wall - t_start})  # fmt: skip

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
    t_start = time.time()
    forked = tempfile.mkdtemp(prefix="nines-lanes-")
    _follow_forks(forked, compiles, t_start)
    sys.argv = ["nines", *cmd]
    from nines_sim.cli import main as cli

    try:
        cli()
    except SystemExit as e:
        if e.code:
            raise
    ru = resource.getrusage(resource.RUSAGE_SELF)
    cpu = ru.ru_utime + ru.ru_stime
    wall = time.time() - t_start
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
    lanes = [json.loads(p.read_text()) for p in sorted(Path(forked).glob("*.json"))]
    if lanes:
        out["building_processes"] = lanes
        w.write(f"building processes (forked; seconds from the command's start, which ended at {wall:.1f} s):\n")
        processes: dict[str, int] = defaultdict(int)  # how many processes compiled each function
        for lane in lanes:
            w.write(f"  {' '.join(lane['work'])}: {lane['start_s']:.1f}-{lane['end_s']:.1f} s, "
                    f"{lane['process_cpu_s']:.1f} s CPU, {sum(c['cpu_s'] for c in lane['compiles']):.1f} s of it "
                    "compiling\n")  # fmt: skip
            for c in lane["compiles"]:
                if c["depth"] == 0 and c["cpu_with_callees_s"] >= 0.05:
                    w.write(f"    at {c['at_s']:5.1f} s {c['cpu_with_callees_s']:6.2f} s  {c['function']}\n")
        for named in [compiles, *(lane["compiles"] for lane in lanes)]:
            for f in {c["function"] for c in named} - {"impl"}:  # numba's own overloads' "impl": not ours
                processes[f] += 1
        twice = sorted(f for f, n in processes.items() if n > 1)
        w.write(f"compiled in more than one process: {', '.join(twice) or 'none'}\n")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


def _follow_forks(folder: str, compiles: list[dict], t_start: float) -> None:
    """Have each building process forked from this one (:func:`nines_sim.engine.build_forms._build_here`, which
    does its work) write its figures into ``folder`` as it ends: its compiles (the listeners it inherited, from an
    empty list), its processor time (its own from the fork) and its start and end."""
    from nines_sim.engine import build_forms

    here = build_forms._build_here

    def build_here(work: list[str]) -> None:
        del compiles[:]
        start = time.time() - t_start
        try:
            here(work)
        finally:
            ru = resource.getrusage(resource.RUSAGE_SELF)
            lane = {"work": list(work), "pid": os.getpid(), "start_s": start, "end_s": time.time() - t_start,
                    "process_cpu_s": ru.ru_utime + ru.ru_stime, "compiles": compiles}  # fmt: skip
            Path(folder, f"{os.getpid()}.json").write_text(json.dumps(lane))

    build_forms._build_here = build_here


if __name__ == "__main__":
    main()
