"""The ``nines replay`` command lines whose printed text is stored in ``tests/data/replays`` (one file each).

The text was written by the engine as it stood before the compiled engine became the only one
(``python -m tests.replay_cases [NAME ...]`` rewrites it: run that only when a change to the printed text is meant).
Every preset is here, tables of 2 to 6 seats, rule options, and Python seats (a batched plug-in, the
search player, a per-game plug-in), so that the one engine's trace is checked against the text the
numpy engine printed.
"""

from __future__ import annotations

#: name -> arguments after ``nines replay``
CASES: dict[str, list[str]] = {
    "classic-3": ["expert", "dump-faces", "hold-nines", "--match", "4"],
    "classic-2": ["random", "suit-majority", "--seed", "3", "--match", "0"],
    "classic-6": [
        "random",
        "expert",
        "hold-nines",
        "dump-faces",
        "suit-majority",
        "random",
        "--seed",
        "11",
        "--match",
        "2",
    ],
    "free-nines-4": ["expert", "random", "hold-nines", "dump-faces", "--rules", "free-nines", "--match", "1"],
    "free-nines-2": ["suit-majority", "expert", "--rules", "free-nines", "--seed", "5", "--match", "7"],
    "hard-nines-3": ["hold-nines", "expert", "random", "--rules", "hard-nines", "--match", "2"],
    "hard-nines-5": [
        "random",
        "random",
        "expert",
        "dump-faces",
        "hold-nines",
        "--rules",
        "hard-nines",
        "--seed",
        "9",
        "--match",
        "3",
    ],
    "draw-until-playable-3": ["expert", "dump-faces", "random", "--rules", "draw-until-playable", "--match", "0"],
    "draw-until-playable-6": [
        "random",
        "hold-nines",
        "expert",
        "suit-majority",
        "dump-faces",
        "expert",
        "--rules",
        "draw-until-playable",
        "--seed",
        "2",
        "--match",
        "5",
    ],
    "skip-reverse-2": ["expert", "random", "--rules", "skip-reverse", "--match", "3"],
    "skip-reverse-4": [
        "expert",
        "dump-faces",
        "hold-nines",
        "random",
        "--rules",
        "skip-reverse",
        "--seed",
        "8",
        "--match",
        "1",
    ],
    "skip-reverse-6": [
        "random",
        "random",
        "expert",
        "expert",
        "hold-nines",
        "suit-majority",
        "--rules",
        "skip-reverse",
        "--seed",
        "4",
        "--match",
        "6",
    ],
    "double-nines-3": ["expert", "random", "hold-nines", "--rules", "double-nines", "--match", "0"],
    "double-nines-5": [
        "random",
        "expert",
        "suit-majority",
        "dump-faces",
        "hold-nines",
        "--rules",
        "double-nines",
        "--seed",
        "6",
        "--match",
        "2",
    ],
    "double-nines-2": ["hold-nines", "random", "--rules", "double-nines", "--seed", "1", "--match", "9"],
    "no-nine-out-3": ["expert", "dump-faces", "hold-nines", "--rules", "no-nine-out", "--match", "1"],
    "no-nine-out-4": [
        "random",
        "expert",
        "random",
        "suit-majority",
        "--rules",
        "no-nine-out",
        "--seed",
        "12",
        "--match",
        "0",
    ],
    "no-stacking-3": ["expert", "hold-nines", "random", "--rules", "no-stacking", "--match", "2"],
    "no-stacking-6": [
        "expert",
        "random",
        "dump-faces",
        "hold-nines",
        "suit-majority",
        "expert",
        "--rules",
        "no-stacking",
        "--seed",
        "7",
        "--match",
        "1",
    ],
    "fixed-hands-5-2": ["expert", "random", "--rules", "fixed-hands-5", "--match", "0"],
    "fixed-hands-5-4": [
        "random",
        "random",
        "random",
        "random",
        "--rules",
        "fixed-hands-5",
        "--seed",
        "13",
        "--match",
        "4",
    ],
    "fixed-hands-7-3": ["expert", "dump-faces", "random", "--rules", "fixed-hands-7", "--match", "3"],
    "fixed-hands-10-5": [
        "expert",
        "hold-nines",
        "random",
        "dump-faces",
        "suit-majority",
        "--rules",
        "fixed-hands-10",
        "--seed",
        "2",
        "--match",
        "1",
    ],
    # tie-break hands (S4)
    "tiebreak-classic-6": [
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "--match",
        "49",
    ],
    "tiebreak-double-nines-6": [
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "hold-nines",
        "--rules",
        "double-nines",
        "--match",
        "80",
    ],
    # options on top of a preset (--rule), and combined presets
    "options-target-3": [
        "expert",
        "dump-faces",
        "hold-nines",
        "--match",
        "4",
        "--rule",
        "target=50",
        "--rule",
        "nine_penalty=20",
    ],
    "options-combined-4": [
        "expert",
        "random",
        "hold-nines",
        "dump-faces",
        "--rules",
        "skip-reverse+draw-until-playable",
        "--rule",
        "tie_rule=share",
        "--seed",
        "3",
        "--match",
        "2",
    ],
    "options-two-decks-3": [
        "random",
        "expert",
        "dump-faces",
        "--rules",
        "double-nines+no-nine-out+no-stacking",
        "--rule",
        "target=60",
        "--match",
        "1",
    ],
    "options-cap-2": [
        "random",
        "random",
        "--rule",
        "turn_cap=12",
        "--rule",
        "block_rule=no-play-circle",
        "--match",
        "2",
    ],
    # Python seats: a batched plug-in, a per-game plug-in beside built-ins, the search player
    "python-lowest-3": ["tests.det_strategies:Lowest", "expert", "random", "--match", "1"],
    "python-pair-4": [
        "tests.det_strategies:HighestPair",
        "expert",
        "tests.det_strategies:Lowest",
        "random",
        "--rules",
        "double-nines",
        "--seed",
        "5",
        "--match",
        "0",
    ],
    "python-skip-reverse-3": [
        "tests.det_strategies:HighestPair",
        "tests.det_strategies:Lowest",
        "hold-nines",
        "--rules",
        "skip-reverse",
        "--match",
        "2",
    ],
    "python-until-2": [
        "tests.det_strategies:Lowest",
        "dump-faces",
        "--rules",
        "draw-until-playable",
        "--seed",
        "4",
        "--match",
        "3",
    ],
    "python-lookahead-2": ["lookahead:samples=4", "expert", "--rules", "fixed-hands-5", "--match", "0"],
    "python-pergame-4": [
        "tests.replay_plugins:Chatty",
        "random",
        "expert",
        "hold-nines",
        "--rules",
        "skip-reverse",
        "--seed",
        "2",
        "--match",
        "1",
    ],
    # a plug-in that fails late: the replay stops at the failing decision (exit code 1)
    "fails-raise-3": ["tests.replay_plugins:LateRaise", "random", "expert", "--match", "0"],
    "fails-illegal-3": [
        "tests.replay_plugins:LateIllegal",
        "random",
        "expert",
        "--rules",
        "hard-nines",
        "--match",
        "1",
    ],
}


def transcript(runner, app, args: list[str]) -> tuple[int, str]:  # noqa: ANN001 - a CliRunner and the Typer app
    """The exit code and printed text of ``nines replay ARGS``, the repository's folder written ``<root>``
    (a traceback names the plug-in's file)."""
    from pathlib import Path

    r = runner.invoke(app, ["replay", *args])
    root = str(Path(__file__).resolve().parent.parent)
    return r.exit_code, r.output.replace(root, "<root>")


def main() -> None:
    """Write each case's printed text (run from the repository's root)."""
    from pathlib import Path

    from typer.testing import CliRunner

    from nines_sim.cli import app

    out = Path(__file__).parent / "data" / "replays"
    out.mkdir(parents=True, exist_ok=True)
    runner = CliRunner()
    import sys

    only = sys.argv[1:]
    for name, args in CASES.items():
        if only and name not in only:
            continue
        code, text = transcript(runner, app, args)
        assert code == (1 if name.startswith("fails-") else 0), (name, text)
        (out / f"{name}.txt").write_text(text)
        print(name, code, len(text.splitlines()), "lines")


if __name__ == "__main__":
    main()
