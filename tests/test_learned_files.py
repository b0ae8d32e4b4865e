"""A run's manifest records the learned model and value files its seats loaded, with their digests, and its command
names the digests: run again (or replayed) once a shipped file has changed, it says so in one line and names the
file that plays the run's, instead of silently playing another model.  Runs without learned files keep their
manifests as they were (no new key, the same command)."""

from __future__ import annotations

import json
import shlex
import shutil

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules
from nines_sim.learn.model import SHIPPED as MODELS
from nines_sim.learn.model import load, shipped_file
from nines_sim.learn.value import SHIPPED as VALUES
from nines_sim.learn.value import load_value
from nines_sim.runs.learned_files import (
    KEY,
    OPTION,
    check_digests,
    learned_files,
    manifest_field,
    stale_in_folder,
    value_digest,
)

#: A heads-up classic model shipped before 2026-12-07 (the leaf-value runs' of 2026-12-06), kept under retired/.
OLD_CLASSIC = "09f3b1903a8694c0"
CLASSIC_2 = "nines_sim/learn/models/classic-2.npz"


def _now(path) -> str:  # noqa: ANN001
    return load(path).digest


def test_a_run_without_learned_files_records_none():
    rules = make_rules("classic", players=2)
    assert learned_files(["expert", "random", "lookahead:samples=8", "ismcts:policy=dump-faces"], rules) == []
    assert manifest_field([]) == {}


def test_each_way_a_seat_loads_a_learned_file_is_recorded_with_the_file_and_its_digest():
    rules = make_rules("classic", players=2)
    model, value = _now(MODELS / "classic-2.npz"), value_digest(load_value(VALUES / "classic-2-learned.npz"))
    specs = ["learned", "lookahead:policy=learned,leaf=learned", "lookahead:infer_plays=0.5,play_model=learned",
             "lookahead:play_model=learned", "learned"]  # fmt: skip
    assert learned_files(specs, rules) == [
        {"spec": "learned", "uses": "model", "file": CLASSIC_2, "digest": model},
        {"spec": specs[1], "uses": "policy", "file": CLASSIC_2, "digest": model},
        {"spec": specs[1], "uses": "leaf", "file": "nines_sim/learn/values/classic-2-learned.npz", "digest": value},
        {"spec": specs[2], "uses": "play_model", "file": CLASSIC_2, "digest": model},
    ]  # play_model=learned without infer_plays loads nothing; a spec repeated is recorded once
    expert_value = value_digest(load_value(VALUES / "classic-2-expert.npz"))
    assert learned_files(["ismcts:leaf=learned"], rules, "classic") == [
        {"spec": "ismcts:leaf=learned", "uses": "leaf", "file": "nines_sim/learn/values/classic-2-expert.npz",
         "digest": expert_value, "rule_set": "classic"}]  # fmt: skip


def test_the_shipped_file_recorded_is_the_one_played_where_none_ships_for_the_table():
    rules = make_rules("hard-nines", players=3)  # no 3-seat model: the nearest ships instead
    path, model, note = shipped_file(rules)
    assert note is not None and path.name == "hard-nines-2.npz"
    [entry] = learned_files(["learned"], rules)
    assert (entry["file"], entry["digest"]) == ("nines_sim/learn/models/hard-nines-2.npz", model.digest)


def test_a_model_file_given_is_recorded_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(MODELS / "classic-2.npz", tmp_path / "mine.npz")
    [entry] = learned_files(["learned@mine.npz"], make_rules("classic", players=2))
    assert entry == {"spec": "learned@mine.npz", "uses": "model", "file": "mine.npz",
                     "digest": _now(MODELS / "classic-2.npz")}  # fmt: skip


def test_a_digest_changed_since_is_said_in_one_line_naming_the_file_that_plays_the_run():
    rules = make_rules("classic", players=2)
    with pytest.warns(UserWarning) as heard:
        lines = check_digests(f"{CLASSIC_2}={OLD_CLASSIC}", ["learned", "expert"], [rules])
    assert [str(w.message) for w in heard] == lines and len(lines) == 1
    assert f"learned played {CLASSIC_2} of digest {OLD_CLASSIC} in this run" in lines[0]
    assert lines[0].endswith(f"use learned@nines_sim/learn/models/retired/classic-2-{OLD_CLASSIC}.npz")
    assert load(f"nines_sim/learn/models/retired/classic-2-{OLD_CLASSIC}.npz").digest == OLD_CLASSIC
    now = _now(MODELS / "classic-2.npz")
    assert check_digests(f"{CLASSIC_2}={now}", ["learned"], [rules]) == []  # the same weights: nothing to say


def _tournament(tmp_path, *args: str) -> dict:  # noqa: ANN001
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["tournament", *args, "-p", "2", "-n", "4", "--quiet", "--no-charts",
                                   "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    return json.loads((out / "manifest.json").read_text())


def test_a_tournament_without_learned_seats_writes_the_manifest_it_wrote_before(tmp_path):
    manifest = _tournament(tmp_path, "expert", "random")
    assert KEY not in manifest and OPTION not in manifest["command"]


def test_a_tournament_with_learned_records_its_file_and_names_the_digest_in_its_command(tmp_path):
    manifest = _tournament(tmp_path, "learned", "expert")
    digest = _now(MODELS / "classic-2.npz")
    assert manifest[KEY] == [{"spec": "learned", "uses": "model", "file": CLASSIC_2, "digest": digest}]
    assert shlex.split(manifest["command"])[-2:] == [OPTION, f"{CLASSIC_2}={digest}"]


def test_replaying_with_a_digest_changed_since_warns_once_then_plays(tmp_path):
    res = CliRunner().invoke(app, ["replay", "learned", "expert", "--match", "0", "-p", "2",
                                   OPTION, f"{CLASSIC_2}={OLD_CLASSIC}"])  # fmt: skip
    assert res.exit_code == 0, res.output
    warned = [line for line in res.output.splitlines() if line.startswith("Warning:")]
    assert len(warned) == 1 and f"learned@nines_sim/learn/models/retired/classic-2-{OLD_CLASSIC}.npz" in warned[0]
    assert res.output.splitlines()[0] == warned[0]  # said before the match is shown


def test_a_run_folder_given_to_replay_says_its_command_with_the_digests_and_what_changed(tmp_path):
    manifest = _tournament(tmp_path, "learned", "expert")
    manifest[KEY][0]["digest"] = OLD_CLASSIC  # as a run of 2026-12-06 recorded it
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(manifest))
    assert len(stale_in_folder(tmp_path / "run")) == 1
    res = CliRunner().invoke(app, ["replay", str(tmp_path / "run")])
    assert res.exit_code == 2
    warned, error = res.output.strip().splitlines()
    assert warned.startswith("Warning: learned played") and "retired/classic-2-" in warned
    assert error.endswith(f"--seed 0 --match K --rules classic {OPTION} {CLASSIC_2}={OLD_CLASSIC}")


def test_a_bad_digests_value_is_a_one_line_usage_error():
    res = CliRunner().invoke(app, ["replay", "learned", "expert", "-p", "2", OPTION, "classic-2.npz"])
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0
    assert "takes FILE=DIGEST pairs" in res.output


def _tune(tmp_path, opponent: str, *more: str) -> dict:  # noqa: ANN001
    """A one-trial heads-up tune study of ``expert`` against ``opponent``; its manifest (the output on failure).

    No charts: their panels, one per parameter of ``expert``, were most of a one-trial study's processor time, and
    the studies here are read for their manifests and warnings (``tests/test_tune.py`` draws and checks them)."""
    args = ["tune", "expert", "--opponents", opponent, "--trials", "1", "--matches", "20", "--validate", "0",
            "--workers", "1", "--quiet", "--no-charts", "--out", str(tmp_path / "study"), *more]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return {**json.loads((tmp_path / "study" / "manifest.json").read_text()), "output": res.output}


def test_a_tune_study_names_its_opponents_learned_file_in_its_command_and_warns_when_it_changed(tmp_path):
    manifest = _tune(tmp_path, "learned")
    digest = _now(MODELS / "classic-2.npz")
    assert shlex.split(manifest["command"])[-2:] == [OPTION, f"{CLASSIC_2}={digest}"]
    output = _tune(tmp_path, "learned", OPTION, f"{CLASSIC_2}={OLD_CLASSIC}")["output"]  # resumed, as of 2026-12-06
    warned = [line for line in output.splitlines() if line.startswith("Warning:")]
    assert len(warned) == 1 and f"retired/classic-2-{OLD_CLASSIC}.npz" in warned[0]


def test_a_tune_study_without_learned_seats_writes_the_command_it_wrote_before(tmp_path):
    manifest = _tune(tmp_path, "random")
    assert KEY not in manifest and OPTION not in manifest["command"]


def test_training_records_each_round_model_its_strength_checks_played(tmp_path):
    from nines_sim.learn.train import _measured_files

    (tmp_path / "models").mkdir()
    shutil.copy(MODELS / "classic-2.npz", tmp_path / "models" / "round-1.npz")
    shutil.copy(MODELS / "retired" / f"classic-2-{OLD_CLASSIC}.npz", tmp_path / "models" / "round-2.npz")
    files = _measured_files(tmp_path, [{"round": 1}, {"round": 2}], make_rules("classic", players=2))[KEY]
    assert [(e["file"], e["digest"]) for e in files] == [
        (str(tmp_path / "models" / "round-1.npz"), _now(MODELS / "classic-2.npz")),
        (str(tmp_path / "models" / "round-2.npz"), OLD_CLASSIC),
    ]


def test_a_folder_that_records_no_rules_of_its_own_is_passed_over(tmp_path):
    entry = {"spec": "learned", "uses": "model", "file": CLASSIC_2, "digest": OLD_CLASSIC}
    (tmp_path / "manifest.json").write_text(json.dumps({"tool": "tune", KEY: [entry]}))  # a tune study's
    assert stale_in_folder(tmp_path) == []
    res = CliRunner().invoke(app, ["replay", str(tmp_path)])
    assert res.exit_code == 2 and "is a folder" in res.output and "Traceback" not in res.output


def test_a_review_of_learned_records_its_file_and_warns_when_reviewed_again_after_a_change(tmp_path):
    args = ["review", "learned", "--against", "expert", "-p", "2", "-n", "1", "--samples", "2", "--no-charts"]
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    digest = _now(MODELS / "classic-2.npz")
    assert manifest[KEY] == [{"spec": "learned", "uses": "model", "file": CLASSIC_2, "digest": digest}]
    assert shlex.split(manifest["command"])[-2:] == [OPTION, f"{CLASSIC_2}={digest}"]
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), OPTION, f"{CLASSIC_2}={OLD_CLASSIC}"])
    assert res.exit_code == 0, res.output
    assert sum(line.startswith("Warning: learned played") for line in res.output.splitlines()) == 1


@pytest.mark.parametrize("spelt", ["absolute", "./relative"])
def test_a_digest_names_the_file_however_its_path_is_spelt(spelt, monkeypatch):
    """Before: only the manifest's own spelling (nines_sim/learn/models/classic-2.npz) was compared; the same file
    named absolute or as ./nines_sim/... gave no warning, and the run played other weights without a word."""
    monkeypatch.chdir(MODELS.parents[2])  # the repository's root, where the tester ran
    file = str((MODELS / "classic-2.npz").resolve()) if spelt == "absolute" else f"./{CLASSIC_2}"
    with pytest.warns(UserWarning):
        lines = check_digests(f"{file}={OLD_CLASSIC}", ["learned"], [make_rules("classic", players=2)])
    assert len(lines) == 1 and f"of digest {OLD_CLASSIC} in this run" in lines[0], lines


def test_a_model_file_given_relative_is_the_file_named_absolute(tmp_path, monkeypatch):
    rules = make_rules("classic", players=2)
    monkeypatch.chdir(tmp_path)
    shutil.copy(MODELS / "classic-2.npz", tmp_path / "mine.npz")
    with pytest.warns(UserWarning):
        lines = check_digests(f"{tmp_path / 'mine.npz'}={OLD_CLASSIC}", ["learned@mine.npz"], [rules])
    assert len(lines) == 1 and f"learned@mine.npz played mine.npz of digest {OLD_CLASSIC}" in lines[0], lines


def test_a_digest_in_upper_case_hex_is_the_same_digest():
    """Before: "not 16 hex digits" for 09F3B1903A8694C0, a usage error."""
    rules = make_rules("classic", players=2)
    assert check_digests(f"{CLASSIC_2}={_now(MODELS / 'classic-2.npz').upper()}", ["learned"], [rules]) == []
    with pytest.warns(UserWarning):
        lines = check_digests(f"{CLASSIC_2}={OLD_CLASSIC.upper()}", ["learned"], [rules])
    assert len(lines) == 1 and f"of digest {OLD_CLASSIC} in this run" in lines[0], lines
