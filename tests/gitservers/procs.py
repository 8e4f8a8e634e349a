"""Ports and processes for the loopback git servers: a free port, waiting until one accepts, and
stopping a server with everything it started (and proving nothing survived)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from contextlib import suppress
from pathlib import Path


def free_port() -> int:
    """A port nothing listens on right now (a server started on it may still race; callers that
    start a subprocess retry on another port when it fails to bind)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """Direct children of pid, from /proc (Linux)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _descendants(pid: int) -> list[int]:
    """All descendants of pid, deepest first (so they can be stopped before their parents)."""
    out: list[int] = []
    for child in _children(pid):
        out.extend(_descendants(child))
        out.append(child)
    return out


def _signal(pid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, sig)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _ignores_sigterm(pid: int) -> bool:
    """Whether pid ignores SIGTERM (git daemon's upload-pack children do): waiting for it to
    act on one would only wait out the timeout."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


def stop_tree(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Stop a server process and everything it started. Children first, so the server (still
    alive) reaps them and none is left a zombie of init; then the server itself; SIGKILL for
    whatever ignores SIGTERM (at once when it says so, else after `timeout`)."""
    children = _descendants(proc.pid)
    for pid in children:
        _signal(pid, signal.SIGKILL if _ignores_sigterm(pid) else signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in [*_descendants(proc.pid), *children]:
        if _alive(pid):
            _signal(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def processes_mentioning(text: str) -> list[int]:
    """Live processes (other than this one) whose command line or environment mentions text, e.g.
    a server's root folder: how a test proves that no server process survived its stop()."""
    found: list[int] = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if (
            not entry.name.isdigit()
            or int(entry.name) == os.getpid()
            or not _alive(int(entry.name))
        ):
            continue
        for part in ("cmdline", "environ"):
            try:
                if needle in (entry / part).read_bytes():
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return found


def git_env() -> dict[str, str]:
    """The environment for a server's git: this one, minus anything that points git elsewhere."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_DIR", "GIT_WORK_TREE"))}
    env.pop("GIT_INDEX_FILE", None)
    return env
