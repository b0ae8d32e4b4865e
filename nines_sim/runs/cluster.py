"""Connecting to a Dask cluster (optional extra ``dask``).

A run given the client (``run_plan(..., client=client)``, ``run_comparison(..., client=client)``) plays
the same experiments as on local workers, on the Dask backend of
:mod:`nines_sim.runs.backends` (which says how units run there, how a Ctrl-C stops
them and why a cluster run writes byte-identical numbers whatever the number of
Dask workers or the chunk size).

Nothing here is imported unless ``--scheduler`` is given.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any

#: Seconds to wait for a scheduler before giving up with an error.
CONNECT_TIMEOUT_S = 10
#: Seconds past that wait before a peer that accepted the connection but never answered is given up on (Dask's
#: handshake can stall past its own timeout there).
SILENT_PEER_GRACE_S = 5
#: Environment of local Dask worker processes. Dask's nannies set MALLOC_TRIM_THRESHOLD_, which
#: also freezes glibc's mmap threshold at 128 KiB: every batch-sized numpy temporary is then
#: mmap'd and unmapped again, and the engine ran much slower (docs/explanation/benchmark-log.md,
#: "Undated"). Raising the mmap threshold restores the speed of a plain process.
WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": 32 * 1024 * 1024, "MALLOC_TRIM_THRESHOLD_": 128 * 1024 * 1024}


class ClusterError(RuntimeError):
    """The cluster cannot be used; the message says why and what to do."""


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            'Dask is not installed: pip install "nines-sim[dask]" (or run without --scheduler)'
        ) from None
    return distributed


def _probe() -> str:
    import nines_sim

    return nines_sim.__version__


@contextmanager
def connect(address: str, workers: int = 2, timeout: float | None = None):
    """A Dask client for ``address`` (``tcp://host:port``) or ``"local"`` (a LocalCluster).

    Parameters
    ----------
    address : str
    workers : int
        Worker processes of a local cluster (one thread each).
    timeout : float, optional
        Seconds to wait for the scheduler (default :data:`CONNECT_TIMEOUT_S`, read at the call).

    Raises
    ------
    ClusterError
        If Dask is missing, the scheduler cannot be reached within ``timeout``,
        or the workers cannot import nines-sim.
    """
    distributed = _import_distributed()
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    cluster = None
    try:
        if address == "local":
            import dask

            environ = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}
            # Workers inherit an ignored SIGINT: a Ctrl-C is the client's to handle (it asks the
            # running chunks to stop and keeps what they finished), not a reason for workers to die.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                with dask.config.set(environ):
                    cluster = distributed.LocalCluster(
                        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                    )
            finally:
                signal.signal(signal.SIGINT, previous)
            client = distributed.Client(cluster, timeout=f"{timeout}s")
        else:
            client = _connect_remote(distributed, address, timeout)
        try:
            versions = client.run(_probe)
        except Exception as exc:  # a worker without the package fails to unpickle the probe
            client.close()
            raise ClusterError(
                f"the Dask workers cannot run nines-sim ({type(exc).__name__}: {exc}); "
                f'install it on every worker: pip install "nines-sim[dask]"'
            ) from None
        if not versions:
            client.close()
            raise ClusterError(f"the Dask scheduler at {address} has no workers; start some with 'dask worker'")
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _connect_remote(distributed: Any, address: str, timeout: float) -> Any:
    """A client for a remote scheduler, or a ClusterError within about ``timeout`` seconds."""
    if not address.strip():
        raise ClusterError("--scheduler needs an address such as tcp://HOST:8786, or local")
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            outcome["client"] = distributed.Client(address, timeout=f"{timeout}s")
        except BaseException as exc:  # reported below as a one-line error
            outcome["error"] = exc

    # A peer that accepts the connection but never answers can stall Dask's handshake
    # past its own timeout, so the wait is bounded here.
    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout + SILENT_PEER_GRACE_S)
    if worker.is_alive() or "client" not in outcome:
        exc = outcome.get("error")
        if isinstance(exc, ValueError) and "://" not in address:
            raise ClusterError(
                f"--scheduler {address} is not a scheduler address; write tcp://HOST:PORT, as 'dask scheduler' "
                f"prints it (e.g. tcp://10.0.0.5:8786), or local"
            )
        why = "no answer" if exc is None else type(exc).__name__
        raise ClusterError(
            f"cannot reach a Dask scheduler at {address} within {timeout:g} s ({why}); start one with "
            f"'dask scheduler --host PRIVATE_ADDRESS' (it runs any code sent to it: never on a public address) and "
            f"'dask worker {address}', and write --scheduler tcp://HOST:PORT (or local)"
        )
    return outcome["client"]
