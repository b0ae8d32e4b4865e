"""MkDocs hook: the command reference, generated from the CLI at build time.

A page holding the line ``<!-- nines-cli-reference -->`` gets, in its place, the Markdown that Typer's own
generator writes for the ``nines`` app (``python -m typer nines_sim.cli utils docs --name nines``): every
command with its arguments, options, types and defaults, as ``nines COMMAND --help`` shows them.  The
generator runs as a subprocess with ``check=True``, so a CLI that fails to load fails the build.  (mkdocs-click
cannot read the app: Typer 0.29 vendors its own click, whose options are not ``click.Option`` instances.)
"""

import re
import subprocess
import sys

MARKER = "<!-- nines-cli-reference -->"


def cli_markdown() -> str:
    """Typer's Markdown for ``nines``, headings one level down (the page keeps its own title)."""
    out = subprocess.run(
        [sys.executable, "-m", "typer", "nines_sim.cli", "utils", "docs", "--name", "nines"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    body = out.split("\n", 1)[1]  # drop Typer's "# nines" title
    lines, fenced = [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            line = re.sub(r"^(#+) ", r"#\1 ", line)
            # help texts write syntax such as preset[+preset][:key=value,...]: brackets outside code spans
            # are text, not Markdown links
            parts = line.split("`")
            parts[::2] = [re.sub(r"([\[\]])", r"\\\1", s) for s in parts[::2]]
            line = "`".join(parts)
        lines.append(line)
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, **kwargs: object) -> str:
    """Replace the marker with the generated reference."""
    return markdown.replace(MARKER, cli_markdown()) if MARKER in markdown else markdown
