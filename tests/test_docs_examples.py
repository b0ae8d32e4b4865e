"""The Python examples of the README and of the documentation site (docs/) run as written.

Every ```python block of a page runs, in the page's order and in one namespace per page (a later block may use
what an earlier one defined), in a fresh working folder.  A block that is not meant to run starts with the
comment ``# not run:`` followed by the reason, which the reader sees on the page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NOT_RUN = "# not run:"


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a page, in order."""
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def runnable(page: Path) -> list[str]:
    return [b for b in python_blocks(page) if not b.startswith(NOT_RUN)]


PAGES_WITH_CODE = [p for p in PAGES if runnable(p)]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_blocks_of_a_page_run_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever an example writes lands here
    namespace: dict = {"__name__": "__docs_example__"}
    for i, code in enumerate(runnable(page)):
        exec(compile(code, f"{page.relative_to(ROOT)}, python block {i + 1}", "exec"), namespace)


def test_the_pages_that_teach_the_library_have_examples_that_run():
    # a page that loses its blocks (a changed fence, a stray "# not run:") would silently test nothing
    names = {str(p.relative_to(ROOT)) for p in PAGES_WITH_CODE}
    assert {"README.md", "docs/tutorials/first-strategy.md", "docs/tutorials/first-tournament.md"} <= names
    assert len(runnable(ROOT / "README.md")) == 2  # the strategy and the library example


def test_a_block_that_is_not_run_says_why():
    for page in PAGES:
        for code in python_blocks(page):
            if code.startswith(NOT_RUN):
                assert code.splitlines()[0][len(NOT_RUN) :].strip(), f"{page}: '{NOT_RUN}' without a reason"


def test_the_readme_strategy_is_the_one_nines_bench_w7_measures():
    # nines_sim/lowest_first.py keeps the README's LowestFirst so that the W7 workload times what a user writes
    readme = python_blocks(ROOT / "README.md")[0]
    module = (ROOT / "nines_sim" / "lowest_first.py").read_text(encoding="utf-8")
    shown = readme[readme.index("LOW_CARDS =") :].strip()
    assert shown in module


def test_every_relative_link_of_the_readme_reaches_a_file():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert len(local) > 10
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing
