"""The group commit across processes: a writer that waits for the workspace lock hands its
queued writes to whichever process holds it, which commits them with its own in one push.

`Handoff` is what the writer needs (memory/git/writer.py); `FileHandoff` is the one-host kind,
a folder beside the workspace lock (every hippo process on this host writing to this remote
shares it). A write's life there, each step one atomic rename or unlink:

    pending/<ticket>  offered by its process (which keeps waiting, and polls for the lock)
    claimed/<ticket>  taken by the lock holder, only while it holds the lock
    done/<ticket>     its outcome, written before the holder lets the lock go

So whoever holds the lock finds in claimed/ only what a holder that died mid-batch left: it
runs those again. Every offered write carries an idempotency key (`handoff:<ticket>` when it had
none), so a write whose push landed just before its holder died lands once and reports that
commit. Its process reads done/ and hands each thread its own outcome; nothing is answered before
the push landed, and a write that failed is answered with its own error only.

Offers and answers are JSON that only hippo's own write types are read back from
(below). jobs/handoff.py keeps the same three stages in Redis for writers
on several hosts sharing one Redis lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
import uuid
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Protocol

import memory.errors as errors
from memory.format import Entry
from memory.git.batch import Author, WriteRequest, WriteResult
from memory.writes import operations as ops

# -- a write and its outcome as JSON: only hippo's own write types are read back (the operations,
# Author, WriteResult, Entry, hippo's errors), never an arbitrary object, so a shared folder or a
# shared Redis can carry them without trusting what else can write there.

Outcome = WriteResult | errors.MemoryStoreError
_TYPES: dict[str, type] = {
    t.__name__: t
    for t in (
        ops.AddEntry,
        ops.AddTombstone,
        ops.ReplaceEntry,
        ops.RemoveEntry,
        ops.AppendLine,
        ops.WriteFile,
        ops.MoveFile,
        ops.DeleteFile,
        Author,
        WriteResult,
        Entry,
    )
}


def _plain(value: Any) -> Any:
    """JSON-ready: a known dataclass as {"type": name, "fields": ...}, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _TYPES.get(name) is not type(value):
            raise TypeError(f"cannot hand off a {name}")
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": name, "fields": fields}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)  # an error's attribute of another kind: kept as its text


def _typed(value: Any) -> Any:
    """The inverse of `_plain`; lists come back as tuples (every sequence field is one)."""
    if isinstance(value, list):
        return tuple(_typed(v) for v in value)
    if isinstance(value, dict) and set(value) == {"type", "fields"}:
        cls = _TYPES.get(str(value["type"]))
        if cls is None:
            raise ValueError(f"not a handed-off type: {value['type']!r}")
        return cls(**{k: _typed(v) for k, v in dict(value["fields"]).items()})
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    return value


def dump_request(request: WriteRequest, key: str) -> str:
    """The request as JSON, under `key` (a holder that dies after its push must not land it
    twice: every handed-off write carries a key)."""
    return json.dumps(
        {
            "ops": _plain(list(request.ops)),
            "author": _plain(request.author),
            "message": request.message,
            "key": key,
            "trailers": dict(request.trailers),
            "force": request.force,
            "revert": request.revert,
        }
    )


def load_request(text: str | bytes) -> WriteRequest:
    d = json.loads(text)
    author = _typed(d["author"])
    if not isinstance(author, Author):
        raise ValueError("a handed-off write without an author")
    trailers = {str(k): str(v) for k, v in dict(d["trailers"]).items()}
    return WriteRequest(
        list(_typed(d["ops"])), author, str(d["message"]), str(d["key"]), trailers,
        bool(d["force"]), d["revert"] if d["revert"] is None else str(d["revert"]),
    )  # fmt: skip


def dump_outcome(outcome: Outcome) -> str:
    if isinstance(outcome, WriteResult):
        return json.dumps({"result": _plain(outcome)})
    # hippo's errors take their own arguments: kept as class, message and attributes
    attrs = {k: _plain(v) for k, v in vars(outcome).items()}
    return json.dumps({"error": type(outcome).__name__, "message": str(outcome), "attrs": attrs})


def load_outcome(text: str | bytes) -> Outcome:
    d = json.loads(text)
    if "result" in d:
        result = _typed(d["result"])
        if not isinstance(result, WriteResult):
            raise ValueError("a handed-off outcome that is not a WriteResult")
        return result
    cls = getattr(errors, str(d["error"]), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.MemoryStoreError)):
        cls = errors.MemoryStoreError
    exc = cls.__new__(cls)
    Exception.__init__(exc, str(d["message"]))
    exc.__dict__.update({k: _typed(v) for k, v in dict(d["attrs"]).items()})
    return exc


DONE_KEPT = 600.0  # seconds an answer waits for a process that may have died before reading it


class Handoff(Protocol):
    """Writes offered by processes waiting for the lock, and their outcomes."""

    def offer(self, request: WriteRequest) -> str:
        """Offer `request` to the lock holder; return its ticket."""

    def withdraw(self, ticket: str) -> bool:
        """Take back an offer nobody claimed yet (True); False once a holder claimed it."""

    def claim(self, limit: int) -> list[tuple[str, WriteRequest]]:
        """(Lock held.) Take up to `limit` offers, and whatever a dead holder left claimed."""

    def answer(self, ticket: str, outcome: Outcome) -> None:
        """(Lock held.) Record the outcome of a claimed offer for the process that made it."""

    def outcomes(self, tickets: Collection[str]) -> dict[str, Outcome]:
        """The outcomes of one's own offers that were answered (each read once)."""

    def waiting(self) -> int:
        """How many offers wait to be claimed (the holder gathers a batch by it)."""


class FileHandoff:
    """The one-host hand-off: a folder of pending, claimed and done writes."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        for sub in ("pending", "claimed", "done", "tmp"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        self._swept = 0.0

    def _put(self, sub: str, ticket: str, data: str) -> None:
        tmp = self.folder / "tmp" / f"{ticket}.{os.getpid()}"
        tmp.write_text(data)
        os.replace(tmp, self.folder / sub / ticket)

    def offer(self, request: WriteRequest) -> str:
        ticket = uuid.uuid4().hex
        self._put("pending", ticket, dump_request(request, request.key or f"handoff:{ticket}"))
        return ticket

    def withdraw(self, ticket: str) -> bool:
        try:
            os.unlink(self.folder / "pending" / ticket)
        except FileNotFoundError:
            return False
        return True

    def claim(self, limit: int) -> list[tuple[str, WriteRequest]]:
        claimed = self.folder / "claimed"
        taken = sorted(os.listdir(claimed))  # left by a holder that died mid-batch
        pending = self.folder / "pending"
        for ticket in sorted(os.listdir(pending), key=_age(pending))[: max(0, limit - len(taken))]:
            with contextlib.suppress(FileNotFoundError):  # withdrawn by its process just now
                os.replace(pending / ticket, claimed / ticket)
                taken.append(ticket)
        out = []
        for ticket in taken:
            try:
                out.append((ticket, load_request((claimed / ticket).read_bytes())))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # torn or foreign: never ours to write (its process times out)
        self._sweep()
        return out

    def answer(self, ticket: str, outcome: Outcome) -> None:
        self._put("done", ticket, dump_outcome(outcome))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.folder / "claimed" / ticket)

    def outcomes(self, tickets: Collection[str]) -> dict[str, Outcome]:
        if not tickets:
            return {}
        done = self.folder / "done"
        out: dict[str, Outcome] = {}
        for ticket in set(os.listdir(done)).intersection(tickets):  # one look for them all
            try:
                out[ticket] = load_outcome((done / ticket).read_bytes())
            except (OSError, ValueError, KeyError, TypeError):
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(done / ticket)
        return out

    def waiting(self) -> int:
        return len(os.listdir(self.folder / "pending"))

    def _sweep(self) -> None:
        """Drop answers nobody read for DONE_KEPT seconds (their process died)."""
        now = time.time()
        if now - self._swept < DONE_KEPT / 10:
            return
        self._swept = now
        for sub in ("done", "tmp"):
            for entry in os.scandir(self.folder / sub):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > DONE_KEPT:
                        os.unlink(entry.path)


def _age(folder: Path) -> Callable[[str], float]:
    def mtime(name: str) -> float:
        try:
            return (folder / name).stat().st_mtime
        except OSError:
            return 0.0

    return mtime
