"""A handed-off write and its outcome as JSON (memory/git/handoff.py): what a process offers to
the lock holder, and what the holder answers. Only hippo's own write types are read back (the
operations, Author, WriteResult, Entry, hippo's errors), never an arbitrary object, so a shared
folder or a shared Redis can carry them without trusting what else can write there.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import memory.errors as errors
from memory.format import Entry
from memory.git.batch import Author, WriteRequest, WriteResult
from memory.writes import operations as ops

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
