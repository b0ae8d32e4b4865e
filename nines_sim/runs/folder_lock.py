"""One writer at a time in a run folder: a lock (``flock``) on the folder itself, taken before the folder is
checked and held until the run's results are written.

The lock is on the folder, not on a file in it, so that a run folder holds nothing but results; the system
releases it when the holding process ends, even when it is killed, so nothing is left to clean up.  A second
run that wants the folder is refused at once (:class:`FolderInUse`) rather than made to wait: a run may take
hours, and the user can choose another ``--out``.  Processes of one tuning study share their folder by design
(several processes, one study): they take the lock shared, which keeps out a run that writes alone.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nines_sim.runs.errors import RunSetupError

#: The file descriptors of the folders this process holds: a forked worker closes its copies, so that a worker
#: that outlives its run never keeps the folder locked (``flock`` belongs to the open file, which a fork shares).
_HELD: set[int] = set()
#: ``flock`` errors of a file system that has no such locks (some network file systems): the run goes on unlocked.
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF}


class FolderInUse(RunSetupError):
    """Another run is writing into the run folder (one writer at a time); the message says what to do."""


def _close_held_in_child() -> None:
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_close_held_in_child)


@contextmanager
def one_writer(folder: Path, option: str | None = "--out", *, shared: bool = False) -> Iterator[None]:
    """Hold the run folder ``folder`` (which exists) for this run until the block ends.

    Parameters
    ----------
    folder : pathlib.Path
        The run folder.
    option : str or None, optional
        The option that named it, for the message (None: a folder the command works on, as ``nines report``'s).
    shared : bool, optional
        Share the folder with other holders that share it (the processes of one tuning study), but not with a
        run that writes alone.

    Raises
    ------
    FolderInUse
        If another run holds the folder (or removed it as this one took it: that run had just failed empty).
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderInUse(_in_use(folder, option)) from None
        except OSError as exc:
            if exc.errno not in _NO_LOCKS:
                raise
        held, now = os.fstat(fd), _stat(folder)
        if now is None or (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
            raise FolderInUse(_in_use(folder, option))
        _HELD.add(fd)
        yield
    finally:
        _HELD.discard(fd)
        os.close(fd)  # releases the lock


def _in_use(folder: Path, option: str | None) -> str:
    other = f", or choose another {option}" if option else ""
    return (
        f"{folder} is in use: another run is writing into it (a run folder has one writer at a time); "
        f"wait for that run to end{other}"
    )


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
