"""What a training round's units of work carry and where they run: a model file as bytes a worker on another
machine can play, and the backend of the run driver (local worker processes, a Dask cluster) or this process."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nines_sim.runs.backends import Backend
    from nines_sim.strategy.base import Strategy


@dataclass(frozen=True)
class ModelFile:
    """A model file as a unit of work carries it to a worker: the strategy that plays it, its path and its bytes.

    A worker that sees the file at ``path`` with these bytes plays it there; one on another machine (a Dask
    worker) writes the bytes into its temporary folder and plays that copy.  With ``in_python`` the model plays
    as a Python seat (:class:`~nines_sim.learn.python_seat.PythonLearned`: the same moves, its decision not
    compiled).
    """

    name: str
    path: str
    data: bytes
    in_python: bool = False

    @classmethod
    def portable(cls, spec: str, in_python: bool = False) -> str | ModelFile:
        """``spec`` as a unit carries it: ``NAME@FILE.npz`` of a file here as a :class:`ModelFile` (played as a
        Python seat with ``in_python``), else as it is."""
        name, sep, where = spec.partition("@")
        if sep and where.endswith(".npz") and Path(where).is_file():
            return cls(name, str(Path(where).resolve()), Path(where).read_bytes(), in_python)
        return spec

    def spec(self) -> str | Strategy:
        """The seat that plays the model on this machine: the spec ``NAME@FILE``, or its Python seat."""
        if self.in_python:
            from nines_sim.learn.model import load
            from nines_sim.learn.python_seat import PythonLearned

            return PythonLearned(load(self.local()))
        return f"{self.name}@{self.local()}"

    def local(self) -> str:
        """The path of the model's bytes on this machine (the file's own, else a copy made in the temporary
        folder, named by the bytes' digest)."""
        import hashlib
        import tempfile

        here = Path(self.path)
        try:
            if here.read_bytes() == self.data:
                return self.path
        except OSError:
            pass
        copy = Path(tempfile.gettempdir()) / "nines-train-models" / f"{hashlib.sha256(self.data).hexdigest()[:32]}.npz"
        if not (copy.is_file() and copy.read_bytes() == self.data):
            copy.parent.mkdir(exist_ok=True)
            part = copy.with_suffix(f".{os.getpid()}.part")
            part.write_bytes(self.data)
            part.replace(copy)  # another process's copy of the same bytes may land first: the same file
        return str(copy)


def local_spec(x: str | ModelFile) -> str | Strategy:
    """The seat that plays ``x`` on this machine (a :class:`ModelFile`'s, :meth:`ModelFile.spec`, else ``x`` as it
    is)."""
    return x.spec() if isinstance(x, ModelFile) else x


def on_backend(workers: int, client: Any = None) -> Backend | None:
    """Where a training run's units of work run: None (this process) for one local worker, else the run driver's
    backend (:func:`nines_sim.runs.backends.choose`: ``workers`` local processes, or the Dask cluster of
    ``client``)."""
    from nines_sim.runs.backends import choose

    return None if client is None and workers <= 1 else choose(workers, client)


def in_process(backend: Backend | None) -> bool:
    """Whether units of work on ``backend`` run in this process (none, or one local worker with live progress)."""
    return backend is None or (backend.live_progress and backend.workers <= 1)
