"""The protocol both tuners follow, in one piece of code (:mod:`nines_sim.experiments.study_folder`): the folder
held and the study opened, trials, validation, one writer; a Ctrl-C during validation keeps the trials."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from nines_sim.experiments.study import TuneInterrupted
from nines_sim.experiments.study_folder import play_study

ROOT = Path(__file__).resolve().parents[1]


def _open(url: str):  # noqa: ANN202
    import optuna

    from nines_sim.experiments.study import open_storage

    return lambda: optuna.create_study(study_name="s", storage=open_storage(url), load_if_exists=True)


def test_trials_then_validation_then_the_writing_in_the_folder(tmp_path):
    run_dir, url = tmp_path / "run", f"journal:{tmp_path / 'run' / 'study.log'}"
    calls = []

    def trials(st, client):
        calls.append(("trials", st.study_name, client))
        return 3

    def validate(st, client):
        calls.append(("validate", client))
        return "checked"

    def write(st, checked, wall, ran):
        calls.append(("write", checked, ran, wall >= 0, (run_dir / "study.log").exists()))
        return {"written": True}

    played = play_study(run_dir, url, _open(url), None, 1, trials, validate, write)
    assert calls == [("trials", "s", None), ("validate", None), ("write", "checked", 3, True, True)]
    assert (played.checked, played.ran, played.written) == ("checked", 3, {"written": True})
    assert played.study.study_name == "s"


def test_a_ctrl_c_during_validation_keeps_the_trials_and_says_how_to_resume(tmp_path):
    run_dir, url = tmp_path / "run", f"journal:{tmp_path / 'run' / 'study.log'}"
    written = []

    def stopped(st, client):
        raise TuneInterrupted("stopped")

    with pytest.raises(TuneInterrupted, match="Interrupted during validation; the trials are kept in journal:"):
        play_study(run_dir, url, _open(url), None, 1, lambda st, c: 2, stopped, lambda *a: written.append(a))
    assert written == [] and (run_dir / "study.log").exists()


def test_a_second_study_into_a_folder_whose_storage_holds_another_is_refused_and_leaves_it_as_it_was(tmp_path):
    # two studies started at once on an empty folder both pass check_target: the first made keeps the folder,
    # the other's results would replace its files (best.json, report.md) under the same name
    from nines_sim.experiments.study import open_storage
    from nines_sim.runs.errors import RunSetupError

    run_dir, url = tmp_path / "run", f"journal:{tmp_path / 'run' / 'study.log'}"
    write = []
    play_study(run_dir, url, _open(url), None, 1, lambda st, c: 1, lambda st, c: None, lambda *a: write.append(1))

    def other():
        import optuna

        return optuna.create_study(study_name="other", storage=open_storage(url), load_if_exists=True)

    with pytest.raises(RunSetupError, match="holds the run of the study 's'.*choose another --out"):
        play_study(run_dir, url, other, None, 1, lambda st, c: 1, lambda st, c: None, lambda *a: write.append(2))
    assert write == [1]
    import optuna

    names = [s.study_name for s in optuna.study.get_all_study_summaries(open_storage(url), include_best_trial=False)]
    assert names == ["s"]
    # the first study goes on in its folder (resumed)
    play_study(run_dir, url, _open(url), None, 1, lambda st, c: 0, lambda st, c: None, lambda *a: write.append(3))
    assert write == [1, 3]


def test_neither_tuner_imports_the_other():
    """Each experiment has one home: what both tuners share lives in the shared study modules, not in one of them."""
    for me, other in (("tune_rules", "tune"), ("tune", "tune_rules")):
        for path in (ROOT / "nines_sim" / "experiments" / me).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module:
                    assert not node.module.startswith(f"nines_sim.experiments.{other}."), (path.name, node.module)
