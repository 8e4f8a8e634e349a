"""Children that die with their parent, whatever signal ends it.

A child hippo starts in its own session (so a terminal's Ctrl-C reaches only hippo, which forwards
one signal) is out of reach of a `kill -9` of hippo's process group, as a crash or an OOM kill
leaves it: before this, two SIGKILLed `hippo worker`s left two orphaned Celery workers consuming
tasks. On Linux the kernel sends the child a signal when its parent dies (PR_SET_PDEATHSIG), set
between fork and exec. Elsewhere there is no such signal; there the child outlives a SIGKILL.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(signum: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess.Popen: the child gets `signum` when this process dies.

    SIGTERM, not SIGKILL: gunicorn and Celery then shut down as they do under a process manager
    (a task in flight is released, not lost). The kernel ties the signal to the thread that
    forks, so start children from the main thread, as hippo's commands do. None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    # Loaded here, in the parent: loading a library between fork and exec is not safe.
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os.kill(os.getpid(), signum)

    return arm
