"""``nines tune-rules`` as ``nines tune`` behaves: on a Dask cluster, several processes on one study, and the
usage error of a search whose every proposed rule set is impossible.

The searches are tiny (``random`` as both design strategies, tens of matches): they test the machinery.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments.design.work import DesignSetup
from nines_sim.experiments.study import claim
from nines_sim.experiments.tune_rules import work as tr
from nines_sim.game.rules import make_rules

runner = CliRunner()
#: A small search: skill at a 4-seat table over the nine penalty (the base's 15 is inside: trial 0).
SEARCH = ["tune-rules", "--space", "nine_penalty=0..1000", "--maximize", "skill", "--skilled", "random", "-n", "40",
          "--seed", "5", "--quiet"]  # fmt: skip
#: Every value impossible: 9 cards to each of 6 players do not fit one deck (RULES.md D4).
IMPOSSIBLE = ["tune-rules", "--space", "hand_sizes=9,9,9,9,9|12,12,12,12,12", "--maximize", "skill", "-p", "6",
              "-n", "10", "--trials", "2", "--quiet"]  # fmt: skip


def _setup(space: str, matches: int = 20) -> tr.RulesSetup:
    objectives, constraints = tr.parse_goals(["skill"], [], [], [])
    return tr.RulesSetup(make_rules(), "classic", matches, 0, tr.parse_space([space]), objectives, constraints,
                         DesignSetup("random", "random"))  # fmt: skip


# ---------------------------------------------------------------- Dask


@pytest.fixture(scope="module")
def scheduler():
    """A running cluster's address (workers as threads of this process: the same code, a quicker start)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as lc:
        yield lc.scheduler_address


def refuse_local(monkeypatch) -> None:  # noqa: ANN001
    """From now on a unit that would run on local processes fails the run: a cluster run plays every match there."""
    from nines_sim.runs import backends

    def refuse(self, job):  # noqa: ANN001, ANN202
        raise AssertionError("a unit ran on the local backend")

    monkeypatch.setattr(backends.Local, "run", refuse)


def test_tune_rules_on_a_cluster_writes_the_files_of_a_local_run(tmp_path, scheduler, monkeypatch):
    args = [*SEARCH, "--trials", "4", "--validate", "60", "--no-charts"]
    r = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    refuse_local(monkeypatch)
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in ("trials.csv", "front.csv", "validation.csv", "best-rules.json"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
    trials = pd.read_csv(tmp_path / "dask" / "trials.csv")
    assert (trials["state"] == "complete").sum() == 4 and trials["skill_table"].notna().all()


@pytest.mark.parametrize("command", ["compare-rules", "tournament"])
def test_the_design_part_plays_on_the_cluster_and_writes_the_local_numbers(command, tmp_path, scheduler, monkeypatch):
    rules = ["--rules", "classic", "--rules", "hard-nines"] if command == "compare-rules" else ["--rules", "hard-nines"]
    args = [command, "random", "random", "random", *rules, "-n", "60", "--design", "90", "--skilled", "random",
            "--quiet", "--no-charts"]  # fmt: skip
    r = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    refuse_local(monkeypatch)
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in ("design.csv", "design_distribution.csv"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
    hands = pd.read_csv(tmp_path / "dask" / "design.csv").query("measure == 'hands'")
    assert (hands["matches"] == 90).all() and len(hands) == len(rules) // 2


def test_an_empty_scheduler_is_a_usage_error(tmp_path):
    r = runner.invoke(app, [*SEARCH, "--scheduler", " ", "--out", str(tmp_path / "t")])
    assert r.exit_code == 2 and "--scheduler needs an address" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "t").exists()


def test_tune_rules_takes_the_scheduler_option_of_tune():
    import click
    import typer.main

    def option(name: str) -> click.Option:
        command = typer.main.get_command(app).commands[name]
        return next(p for p in command.params if "--scheduler" in p.opts)

    assert option("tune-rules").help == option("tune").help and "Dask" in option("tune").help


# ---------------------------------------------------------------- several processes on one study


def test_a_rules_study_enqueues_the_base_once_and_a_live_process_trial_is_waited_for(tmp_path):
    setup = _setup("nine_penalty=0..40")
    study = tr.open_rules_study(f"sqlite:///{tmp_path / 's.db'}", "s", setup)
    trial = claim(study, setup, 1, [])
    assert trial.suggest_int("nine_penalty", 0, 40) == 15  # the base rule set comes first
    assert claim(study, setup, 1, []) == "wait"  # this process is alive: its trial is not taken
    assert claim(study, setup, 2, []) not in ("wait", "done")
    assert len(study.trials) == 2


def test_a_base_outside_the_bounds_is_not_a_trial(tmp_path):
    setup = _setup("nine_penalty=20..40")
    assert setup.first_trial() is None
    study = tr.open_rules_study(f"sqlite:///{tmp_path / 's.db'}", "s", setup)
    assert tr.search(study, setup, 2, 1, 1024) == 2
    assert all(20 <= t.params["nine_penalty"] <= 40 for t in study.trials) and len(study.trials) == 2
    assert not any("fixed_params" in t.system_attrs for t in study.trials)
    import typer.main

    command = typer.main.get_command(app).commands["tune-rules"]
    said = next(p for p in command.params if "--rules" in p.opts).help
    assert "if one is outside, no trial plays the base" in said, said  # --help says so


# One storage kind here: the trial loop is nines tune's (study.run_trials), whose test starts 3 processes on SQLite
# and 2 on a journal file; this one checks what tune-rules adds (its base rules, its folder, its answer), with two
# processes (each costs about 6 s of processor time, most of it imports; no charts: none is read).
@pytest.mark.parametrize(("storage", "processes"), [("sqlite", 2)])
def test_processes_started_together_on_a_new_rules_study_share_it(storage, processes, tmp_path):
    """N processes on one new storage, study and run folder, all started before any ends."""
    url = f"sqlite:///{tmp_path / 'X.db'}" if storage == "sqlite" else f"journal:{tmp_path / 'X.log'}"
    out = tmp_path / "out"
    args = [*SEARCH, "--trials", "3", "--validate", "40", "--workers", "1", "--storage", url, "--study", "S", "--out",
            str(out), "--no-charts"]  # fmt: skip
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "nines_sim", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )  # fmt: skip
        for _ in range(processes)
    ]
    results = [(p.returncode, o, e) for p in procs for o, e in [p.communicate()]]
    for code, stdout, stderr in results:
        assert code == 0 and "Traceback" not in stderr, stderr
        assert "3 trials (" in stdout, stdout
    assert sum(int(o.split("trials (")[1].split()[0]) for _, o, _ in results) == 3  # each trial run by one process
    setup = tr.RulesSetup(make_rules(), "classic", 40, 5, tr.parse_space(["nine_penalty=0..1000"]),
                          *tr.parse_goals(["skill"], [], [], []), DesignSetup("random", "random"))  # fmt: skip
    study = tr.open_rules_study(url, "S", setup)
    assert [(t.number, t.state.name) for t in study.trials] == [(0, "COMPLETE"), (1, "COMPLETE"), (2, "COMPLETE")]
    # the base rule set was enqueued once, and played first
    assert ["fixed_params" in t.system_attrs for t in study.trials] == [True, False, False]
    assert study.trials[0].params == {"nine_penalty": 15}
    # every process validated the same finished study: the same answer, and one whole folder
    assert len({o.splitlines()[0] for _, o, _ in results}) == 1
    trials = pd.read_csv(out / "trials.csv")
    assert trials["trial"].tolist() == [0, 1, 2] and (trials["state"] == "complete").all()
    assert json.loads((out / "manifest.json").read_text())["study"] == "S"
    assert runner.invoke(app, ["report", str(out), "--no-charts"]).exit_code == 0


# ---------------------------------------------------------------- every proposed rule set impossible


def test_every_proposed_rule_set_impossible_is_one_line_exit_2_and_writes_nothing(tmp_path):
    out = tmp_path / "t"
    r = runner.invoke(app, [*IMPOSSIBLE, "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert "the last 20 proposed rule sets were all impossible" in r.output and "narrow --space" in r.output
    assert not out.exists()  # the folder, and the default study.db in it
    # a storage file of this run goes too; one that held another study keeps it and loses only this one
    for form in ("sqlite:///{}", "journal:{}"):
        db = tmp_path / ("new.db" if form.startswith("sqlite") else "new.log")
        r = runner.invoke(app, [*IMPOSSIBLE, "--storage", form.format(db), "--out", str(out)])
        assert r.exit_code == 2, r.output
        assert not db.exists() and not out.exists() and not list(tmp_path.glob("new.*"))
    url = f"sqlite:///{tmp_path / 'kept.db'}"
    kept = tr.open_rules_study(url, "other", _setup("nine_penalty=0..40"))
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    r = runner.invoke(app, [*IMPOSSIBLE, "--storage", url, "--study", "bad", "--out", str(out),
                            "--force"])  # fmt: skip
    assert r.exit_code == 2, r.output
    import optuna

    names = [s.study_name for s in optuna.study.get_all_study_summaries(url, include_best_trial=False)]
    assert names == ["other"] and kept.user_attrs["rules_setup"]
    assert [f.name for f in out.iterdir() if not f.name.endswith(".tune-lock")] == ["notes.txt"]


def test_a_study_made_for_another_search_is_refused_before_any_folder_is_made(tmp_path):
    """The study's setup is checked as it opens, after the run folder is made ready: refused, that folder (new
    and empty) goes again, so the usage error wrote nothing."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    tr.open_rules_study(url, "np", _setup("nine_penalty=0..30"))  # another search's study of that name
    out = tmp_path / "mine"
    r = runner.invoke(app, [*SEARCH, "--trials", "2", "--storage", url, "--study", "np", "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "was made for another search" in r.output
    assert not out.exists()


# ---------------------------------------------------------------- the rule set a trial writes


@pytest.mark.parametrize(
    ("base_spec", "written"),
    [
        ("classic:nine_penalty=30", "classic:nine_penalty=25"),
        ("classic:target=80,nine_penalty=30", "classic:target=80,nine_penalty=25"),
        ("hard-nines:nine_penalty=30", "hard-nines:nine_penalty=25"),
        ("hard-nines", "hard-nines:nine_penalty=30"),
    ],
)
def test_a_trial_value_replaces_the_base_value_of_its_option(base_spec, written):
    """A searched option the base sets too is written once, with the trial's value (``--rules @best-rules.json``
    of a previous search, or ``--rule nine_penalty=30``, as the base)."""
    from nines_sim.game.rules import parse_rule_set

    base = parse_rule_set(base_spec)
    setup = tr.RulesSetup(base, base_spec, 20, 0, tr.parse_space(["nine_penalty=0..60"]),
                          *tr.parse_goals(["skill"], [], [], []), DesignSetup("random", "random"))  # fmt: skip
    value = int(written.rsplit("=", 1)[1])
    assert setup.spec({"nine_penalty": value}) == written
    assert parse_rule_set(written) == setup.rules({"nine_penalty": value}) == base.replace(nine_penalty=value)
    assert setup.spec({"nine_penalty": base.nine_penalty}) == base_spec  # the base's own value: the base as written
    back = 15 if base.preset == "classic" else 25  # the preset's own value is written out too: still set once
    assert parse_rule_set(setup.spec({"nine_penalty": back})) == base.replace(nine_penalty=back)


def test_best_rules_of_a_base_that_sets_the_searched_option_play(tmp_path):
    out = tmp_path / "b"
    r = runner.invoke(app, ["tune-rules", "--rules", "classic:nine_penalty=30", "--space", "nine_penalty=0..60",
                            "--maximize", "skill", "--skilled", "random", "--trials", "3", "-n", "40", "--validate",
                            "40", "--seed", "5", "--workers", "1", "-q", "--no-charts", "--out", str(out)])  # fmt: skip
    assert r.exit_code == 0, r.output
    from nines_sim.game.rules import parse_rule_set

    best = json.loads((out / "best-rules.json").read_text())
    trial = pd.read_csv(out / "trials.csv").set_index("trial").loc[best["trial"]]
    assert parse_rule_set(f"@{out / 'best-rules.json'}") == make_rules(nine_penalty=int(trial["nine_penalty"]))
    assert best["rule_set"].count("nine_penalty=") == 1
    assert pd.read_csv(out / "front.csv")["rule_set"].iloc[0] == best["rule_set"]
    assert json.loads((out / "manifest.json").read_text())["best_rule_set"] == best["rule_set"]
    played = runner.invoke(app, ["tournament", *["random"] * 4, "-n", "10", "--workers", "1", "-q", "--no-charts",
                                 "--rules", f"@{out / 'best-rules.json'}", "--out", str(tmp_path / "t")])  # fmt: skip
    assert played.exit_code == 0, played.output


# ---------------------------------------------------------------- usage errors of --space


@pytest.mark.parametrize(
    ("space", "option"),
    [("draw_rule=one,bogus", "draw_rule"), ("tie_rule=playoff,sharee", "tie_rule"),
     ("block_rule=pass-circle,nope", "block_rule"), ("decks=1,3", "decks")],
)  # fmt: skip
def test_a_choice_the_rules_refuse_is_a_usage_error_as_compare_rules_says_it(space, option, tmp_path):
    out = tmp_path / "t"
    r = runner.invoke(app, ["tune-rules", "--space", space, "--maximize", "skill", "--out", str(out)])
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and "Traceback" not in r.output, r.output
    assert not out.exists()
    compare = runner.invoke(app, ["compare-rules", "--sweep", space, "-n", "5", "--out", str(tmp_path / "c")])
    assert compare.exit_code == 2, compare.output
    said = compare.output.strip().removeprefix("Error: ")
    assert said.startswith(f"{option} must be ") and lines[0].endswith(said), (lines[0], said)


# ---------------------------------------------------------------- a best that validation finds worse than the base


def _checked(value: float, delta: float, significant: bool) -> pd.DataFrame:
    """A validation frame (:func:`tr.validate_front`'s columns) of the base and trial 3 on ``skill_table``."""
    base = value - delta
    cols = ["rule_set", "measure", "lineup", "matches", "value", "low", "high", "delta", "delta_low", "delta_high",
            "p_value", "p_holm", "significant"]  # fmt: skip
    rows = [["base", "skill_table", "table", 400, base, base - 0.02, base + 0.02, *[float("nan")] * 5, False],
            ["trial 3", "skill_table", "table", 400, value, value - 0.02, value + 0.02, delta, delta - 0.01,
             delta + 0.01, 0.001 if significant else 0.5, 0.001 if significant else 0.5, significant]]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    ("kind", "delta", "significant", "worse"),
    [("maximize", -0.05, True, True), ("maximize", 0.05, True, False), ("maximize", -0.05, False, False),
     ("minimize", 0.05, True, True), ("minimize", -0.05, True, False),
     ("target", 0.05, True, True), ("target", -0.05, True, False)],
)  # fmt: skip
def test_a_best_significantly_worse_than_the_base_says_keep_the_base(kind, delta, significant, worse, tmp_path):
    from nines_sim.experiments.tune_rules.report import render_report
    from nines_sim.experiments.tune_rules.study import RulesOutcome

    goals = {"maximize": (["skill"], [], []), "minimize": ([], ["skill"], []), "target": ([], [], ["skill=0.3"])}
    setup = tr.RulesSetup(make_rules(), "classic", 20, 0, tr.parse_space(["nine_penalty=0..60"]),
                          *tr.parse_goals(*goals[kind], []), DesignSetup("random", "random"))  # fmt: skip
    value = 0.35 if kind == "target" else 0.3  # target 0.3: the base is 0.35 - delta
    checked = _checked(value, delta, significant)
    assert (tr.worse_than_base(setup, checked, "trial 3") == "skill_table") is worse
    assert tr.worse_than_base(setup, checked, "base") is None and tr.worse_than_base(setup, None, "trial 3") is None
    best = {"rule_set": "classic:nine_penalty=40", "trial": 3, "label": "trial 3"}
    said = RulesOutcome(tmp_path, setup, best, checked, 8, 8, 1.0).summary()[0]
    assert said.startswith("best rules: classic:nine_penalty=40; validated on 400 fresh matches: skill_table")
    assert ("significantly worse than the base rules on skill_table: keep the base rules (classic)" in said) is worse
    trials = pd.DataFrame({"trial": [3], "state": ["complete"]})
    report = render_report(setup, trials, pd.DataFrame({"trial": [3]}), checked, best, {"command": "nines"}, [])
    assert ("significantly worse than the base rules** on" in report) is worse
    assert ("keep the base rules (`classic`)" in report) is worse


def test_the_validated_value_its_shift_and_their_intervals_show_one_precision(tmp_path):
    from nines_sim.experiments.tune_rules.report import render_report
    from nines_sim.experiments.tune_rules.study import RulesOutcome

    setup = tr.RulesSetup(make_rules(), "classic", 20, 0, tr.parse_space(["nine_penalty=0..60"]),
                          *tr.parse_goals(["skill"], [], [], []), DesignSetup("random", "random"))  # fmt: skip
    checked = _checked(0.3267, 0.0205, True)
    checked.loc[1, ["delta_low", "delta_high"]] = [0.01605, 0.02495]  # four significant digits each were five places
    best = {"rule_set": "classic:nine_penalty=0", "trial": 3, "label": "trial 3"}
    said = RulesOutcome(tmp_path, setup, best, checked, 8, 8, 1.0).summary()[0]
    # was "+0.0205 vs base, 95% CI +0.01605 to +0.02495": the value's four decimals throughout
    assert said.endswith("skill_table 0.3267 (+0.0205 vs base, 95% CI +0.0161 to +0.0250, significant)"), said
    trials = pd.DataFrame({"trial": [3], "state": ["complete"]})
    report = render_report(setup, trials, pd.DataFrame({"trial": [3]}), checked, best, {"command": "nines"}, [])
    assert "0.3267 (95% CI 0.3067 to 0.3467); against the base +0.0205 (95% CI +0.0161 to +0.0250, Holm" in report
