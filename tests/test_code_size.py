"""No function longer than a screenful or two, no class and no module longer than a module should be (issue 24:
each module one job, a few hundred lines at most).

Walks ``nines_sim/``, ``strategies/`` and ``tests/`` (the tests keep the package's rules, issue 39) with
:mod:`ast`.  A function's length is the lines of its own body, from its first statement (the docstring counts) to
its last, without the lines of the functions nested in it (each nested function is measured on its own); a
class's length runs from its ``class`` line to its last line; a module's length is its lines, as ``wc -l`` counts
them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("nines_sim", "strategies", "tests")
#: Most lines of a function's own body.
MAX_FUNCTION_LINES = 150
#: Most lines of a class.
MAX_CLASS_LINES = 500
#: Most lines of a module.
MAX_MODULE_LINES = 500

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _nested_functions(node: ast.AST) -> list[ast.AST]:
    """The functions defined inside ``node`` at any depth, but not inside another of them."""
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, FUNCTIONS):
            out.append(child)
        else:
            out += _nested_functions(child)
    return out


def _span(node: ast.AST) -> set[int]:
    """Lines a definition takes, its decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return set(range(first, node.end_lineno + 1))


def own_body_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of ``fn``'s body without the lines of the functions nested in it."""
    lines = set(range(fn.body[0].lineno, fn.end_lineno + 1))
    for inner in _nested_functions(fn):
        lines -= _span(inner)
    return len(lines)


def offenders(root: Path = ROOT) -> list[str]:
    """Every function over :data:`MAX_FUNCTION_LINES` and class over :data:`MAX_CLASS_LINES`, as
    ``"path:line name (N lines)"``, in file order."""
    out = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(tree):
                # a body's own lines are at most its span: only a function whose span is over the limit is measured
                # (the walk over its nested functions, done for every function of the tree, cost a quarter of this test)
                if (
                    isinstance(node, FUNCTIONS)
                    and node.end_lineno - node.body[0].lineno + 1 > MAX_FUNCTION_LINES
                    and (n := own_body_lines(node)) > MAX_FUNCTION_LINES
                ):
                    out.append((rel, node.lineno, f"function {node.name} ({n} lines)"))
                elif isinstance(node, ast.ClassDef) and (n := node.end_lineno - node.lineno + 1) > MAX_CLASS_LINES:
                    out.append((rel, node.lineno, f"class {node.name} ({n} lines)"))
    return [f"{rel}:{line} {what}" for rel, line, what in sorted(out)]


def long_modules(root: Path = ROOT) -> list[str]:
    """Every module over :data:`MAX_MODULE_LINES` lines, as ``"path (N lines)"``, in path order."""
    out = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            n = path.read_text(encoding="utf-8").count("\n")
            if n > MAX_MODULE_LINES:
                out.append(f"{path.relative_to(root).as_posix()} ({n} lines)")
    return out


def test_the_measure_counts_a_functions_own_lines_only(tmp_path: Path):
    """The measure itself: nested functions' lines go to them, decorators and blank lines are handled."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))  # exactly the limit
    inner = "\n".join(f"        y{i} = {i}" for i in range(MAX_FUNCTION_LINES + 1))  # one over
    src = (
        f"def at_limit():\n{body}\n\n\n"
        f"def outer():\n    z = 0\n    @staticmethod\n    def inner():\n{inner}\n    return z\n\n\n"
        "class Small:\n" + "\n".join(f"    a{i} = {i}" for i in range(MAX_CLASS_LINES - 1)) + "\n\n\n"
        "class Big:\n" + "\n".join(f"    b{i} = {i}" for i in range(MAX_CLASS_LINES)) + "\n"
    )
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "nines_sim" / "m.py").write_text(src)
    tree = ast.parse(src)
    sizes = {n.name: own_body_lines(n) for n in ast.walk(tree) if isinstance(n, FUNCTIONS)}
    assert sizes == {"at_limit": MAX_FUNCTION_LINES, "outer": 2, "inner": MAX_FUNCTION_LINES + 1}
    found = offenders(tmp_path)
    assert [f.split(" ", 1)[1] for f in found] == [
        f"function inner ({MAX_FUNCTION_LINES + 1} lines)",
        f"class Big ({MAX_CLASS_LINES + 1} lines)",
    ], found


def test_no_function_or_class_is_too_long():
    found = offenders()
    limits = f"functions: own body over {MAX_FUNCTION_LINES} lines; classes: over {MAX_CLASS_LINES} lines"
    assert not found, f"too long ({limits}):\n" + "\n".join(found)


def test_the_measure_of_a_module_counts_its_lines(tmp_path: Path):
    """A module of exactly the limit passes, one line more does not; every folder is walked, subfolders too."""
    for folder in ("nines_sim/sub", "strategies", "tests"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "nines_sim" / "sub" / "at_limit.py").write_text("x = 0\n" * MAX_MODULE_LINES)
    (tmp_path / "nines_sim" / "sub" / "over.py").write_text("x = 0\n" * (MAX_MODULE_LINES + 1))
    (tmp_path / "strategies" / "s.py").write_text("y = 1\n" * (MAX_MODULE_LINES + 2))
    (tmp_path / "tests" / "test_t.py").write_text("z = 2\n" * (MAX_MODULE_LINES + 3))
    assert long_modules(tmp_path) == [
        f"nines_sim/sub/over.py ({MAX_MODULE_LINES + 1} lines)",
        f"strategies/s.py ({MAX_MODULE_LINES + 2} lines)",
        f"tests/test_t.py ({MAX_MODULE_LINES + 3} lines)",
    ]


def test_no_module_is_too_long():
    found = long_modules()
    assert not found, f"too long (modules: over {MAX_MODULE_LINES} lines; split by job):\n" + "\n".join(found)
