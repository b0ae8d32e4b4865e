"""The documentation site's structure: every page in the navigation, the API reference's modules importable, the
command reference generated with every command and option.  (`mkdocs build --strict` in .ci/run checks links and
renders the pages; these checks run with the tests, without the docs extra.)
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import typer

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def nav_pages() -> list[str]:
    return re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M)


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    listed = nav_pages()
    assert len(listed) == len(set(listed))  # no page twice
    assert set(listed) == pages


def test_the_api_reference_names_modules_that_import():
    # the one list of modules (docs/reference/api.md): a module renamed without its old path breaks the site
    modules = re.findall(r"^::: ([\w.]+)\s*$", (DOCS / "reference" / "api.md").read_text(), re.M)
    assert "nines_sim.runs.simulate" in modules and "nines_sim.strategy.base" in modules
    for name in modules:
        importlib.import_module(name)


def load_hook():
    spec = importlib.util.spec_from_file_location("cli_reference_hook", DOCS / "hooks" / "cli_reference.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook


def test_the_command_reference_documents_every_command_and_option():
    from nines_sim.cli import app

    hook = load_hook()
    page = (DOCS / "reference" / "cli.md").read_text()
    assert hook.MARKER in page
    text = hook.on_page_markdown(page)
    assert hook.MARKER not in text
    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="nines")  # Typer's own click (it vendors one)
    names = group.list_commands(ctx)
    assert {"tournament", "compare-rules", "replay", "analyze", "tune", "bench", "rules"} <= set(names)
    for name in names:
        command = group.get_command(ctx, name)
        assert f"### `nines {name}`" in text, name  # one section per command, below the page's own title
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("--"):
                    assert f"`{opt}" in text or f", {opt}" in text, (name, opt)


def test_help_text_brackets_are_escaped_outside_code():
    # help strings write syntax such as preset[+preset][:key=value,...]; unescaped, Markdown reads links
    text = load_hook().cli_markdown()
    assert r"preset\[+preset\]\[:key=value,...\]" in text


def test_the_readme_stays_a_front_door():
    # issue 24: the README says what nines-sim does, how to set it up and where to read on (about 20 KB at most);
    # tutorials, reference, measurements and design notes belong in docs/
    size = len((ROOT / "README.md").read_bytes())
    assert size <= 20_000, f"README.md is {size:,} bytes: move the detail into a page of docs/ and link it"
