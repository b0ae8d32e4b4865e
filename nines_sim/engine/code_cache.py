"""numba's on-disk cache, keyed by every file the compiled code takes in.

numba files a function's machine code under the function's own file, and finds it stale only when that
file's timestamp changes.  Compiled code also takes in the functions it calls in other files (inlined or
linked) and the constants it reads there: an edit of :mod:`nines_sim.engine.bits` or of a built-in's
compiled decision alone left the turn loop's cached code running the old helper.  :class:`DigestCache`
joins :func:`code_digest` of the function to the stamp numba checks, so an edit of any file the code
reaches recompiles it; :func:`seal_module` gives every cached dispatcher of a module that cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import types
from typing import Any

from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.dispatcher import Dispatcher

# Packages whose code compiled code does not take in (numba and numpy come with their own version checks).
_NOT_HASHED = {"builtins", "cmath", "llvmlite", "math", "numba", "numpy", "operator"}


def code_files(fn: Any) -> tuple[set[str], bytes]:
    """The files compiled code of ``fn`` takes in, and a digest of the other values it reads.

    Parameters
    ----------
    fn : function or numba dispatcher

    Returns
    -------
    tuple
        ``(files, values)``: the path of every file that holds a function ``fn`` reaches (through its
        globals, its closure, modules' attributes, recursively, numba dispatchers included), and the
        sha256 digest (bytes) of every other global it reads, which numba freezes into the code.
    """
    files: set[str] = set()
    values = hashlib.sha256()
    seen: set[int] = set()

    def hashed(module_name: str) -> bool:
        return module_name.partition(".")[0] not in _NOT_HASHED

    def visit(v: Any, names: tuple[str, ...]) -> None:
        if isinstance(v, types.ModuleType):  # visited once per reader: each reads its own attributes
            if hashed(v.__name__):
                files.add(getattr(v, "__file__", None) or v.__name__)
                for n in names:  # module.attribute, as the reading code names them
                    if n in vars(v) and not isinstance(vars(v)[n], types.ModuleType):
                        visit(vars(v)[n], names)
            return
        if id(v) in seen:
            return
        seen.add(id(v))
        py = getattr(v, "py_func", None) or getattr(v, "__wrapped__", None) or v
        code = getattr(py, "__code__", None)
        if code is not None:
            if hashed(getattr(py, "__module__", None) or ""):
                files.add(code.co_filename)
                inner = _names(code)
                glob = getattr(py, "__globals__", {})
                for n in inner:
                    if n in glob:
                        visit(glob[n], inner)
                for cell in getattr(py, "__closure__", None) or ():
                    # a closure's values (a learned model's weights) key numba's own index entry, one per model;
                    # in the stamp they made each model's save drop every other model's entry from the index
                    if callable(cell.cell_contents) or isinstance(cell.cell_contents, types.ModuleType):
                        visit(cell.cell_contents, inner)
            return
        module = getattr(v, "__module__", None)
        if callable(v) and isinstance(module, str):  # an intrinsic, an overload, a class: its module's file
            if hashed(module) and getattr(sys.modules.get(module), "__file__", None):
                files.add(sys.modules[module].__file__)
            return
        try:
            values.update(pickle.dumps(v))
        except Exception:  # noqa: BLE001 - an unpicklable value: its text stands for it
            values.update(repr(v).encode())

    visit(fn, ())
    return files, values.digest()


def code_digest(fn: Any) -> str:
    """A digest of everything compiled code of ``fn`` takes in: the text of each of :func:`code_files`'s
    files and the values it reads.

    Parameters
    ----------
    fn : function or numba dispatcher

    Returns
    -------
    str
        A sha256 hex digest; equal in two processes when the code they would compile is the same.
    """
    files, values = code_files(fn)
    h = hashlib.sha256(values)
    for f in sorted(files, key=os.path.basename):  # by name, not path: a copy of the package keeps its digests
        h.update(os.path.basename(f).encode() + b"\0")
        try:
            with open(f, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
        except OSError:
            pass
    return h.hexdigest()


def _names(code: types.CodeType) -> tuple[str, ...]:
    """The global and attribute names a code object and the functions defined in it read."""
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _names(c)
    return tuple(dict.fromkeys(out))


class DigestCache(FunctionCache):
    """numba's cache of a function, stale when any file its code takes in changes (:func:`code_digest`), not
    only its own.

    ``form`` names a second compiled form of the same function (its files' names end with it): numba files
    every form of a function under one name, where two forms' entries could not be told apart.
    """

    def __init__(self, py_func: Any, form: str = "") -> None:
        super().__init__(py_func)
        stamp = (self._impl.locator.get_source_stamp(), code_digest(py_func))
        self._cache_file = IndexDataCacheFile(self._cache_path, self._impl.filename_base + form, stamp)


def seal_module(namespace: dict) -> None:
    """Give every cached numba dispatcher defined in a module (its ``globals()``) a :class:`DigestCache`.

    Call it at the end of the module, once every function its dispatchers reach is defined.
    """
    name = namespace["__name__"]
    for v in list(namespace.values()):
        if (
            isinstance(v, Dispatcher)
            and isinstance(getattr(v, "_cache", None), FunctionCache)
            and not isinstance(v._cache, DigestCache)
            and v.py_func.__module__ == name
        ):
            v._cache = DigestCache(v.py_func)
