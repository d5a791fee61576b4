"""The sandbox: a trusted fork-server, persistent sandboxed workers, and a watchdog.

Process layout (``docs/FUZZING.md`` has the full story)::

    harness (CLI / pool process / Dask worker)        trusted, never runs user code
      └── fork-server  (python -c BOOT, stdlib only)  trusted, own network namespace
            ├── worker  (setsid, rlimits, audit hook, temp dir)  runs the reference
            └── worker  ...                                      runs a variant

The harness asks the fork-server for a worker by sending it a fresh socket pair end and a
memfd (``SCM_RIGHTS``); the fork-server forks, the child contains itself and then only talks
to the harness. A worker executes *chunks* of inputs and writes one fixed-size record per
input (kind byte, 16-byte digest, charged seconds) into the shared memfd; nothing a worker
says is trusted beyond these fixed-size records and small capped JSON frames (no unpickling
of worker data, ever). The harness polls the records while it waits, which gives the
watchdog the input in flight of an honest worker: on a missed wall-clock deadline it SIGKILLs
the worker (``pidfd_send_signal``), records TIMEOUT, re-forks, reloads and continues with the
next input; on EOF (the worker died) it records CRASH the same way. What the records say can
only add a TIMEOUT: the kernel's CPU time of the worker (``/proc``) and the wall clock bound
each chunk by the sums of its inputs' timeouts, and past either the chunk runs again one input
per request, where the input in flight is the one the request names (``executor``).

Modules: ``protocol`` (shared-memory records, frames, errors), ``containment`` (what a worker
does to itself: rlimits, kernel isolation, audit hook), ``worker`` (the code inside a worker),
``forkserver`` (the fork-server and its handle), ``worker_handle`` (the harness's handle of a
worker), ``executor`` (passes over the inputs, the watchdog).

The package imports only the standard library and its siblings ``lcl.engine.fuzz.isolation`` and
``lcl.engine.fuzz.semantics`` (themselves standard library only): the fork-server imports it, all
of it, before it forks workers, because a confined worker cannot read the library's files.
"""

from __future__ import annotations

from .containment import dir_size, wipe_dir
from .executor import CodeSpec, Executor, LoadStatus, PassResult, proc_cpu, set_abort_event
from .forkserver import (
    NETWORK_MODES,
    ForkServer,
    forkserver_main,
    get_forkserver,
    isolation_mode,
    needs_heavy,
    shutdown_forkservers,
)
from .protocol import CHARGE, FRAME, HDR, MAX_FRAME, POLL, TICK, Aborted, SandboxError, layout
from .worker_handle import Worker

__all__ = [
                         "CHARGE",
                         "FRAME",
                         "HDR",
                         "MAX_FRAME",
                         "NETWORK_MODES",
                         "POLL",
                         "TICK",
                         "Aborted",
                         "CodeSpec",
                         "Executor",
                         "ForkServer",
                         "LoadStatus",
                         "PassResult",
                         "SandboxError",
                         "Worker",
                         "dir_size",
                         "forkserver_main",
                         "get_forkserver",
                         "isolation_mode",
                         "layout",
                         "needs_heavy",
                         "proc_cpu",
                         "set_abort_event",
                         "shutdown_forkservers",
                         "wipe_dir",
]
