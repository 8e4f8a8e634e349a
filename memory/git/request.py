"""What a write asks for (`WriteRequest`) and what it gets back (`WriteResult`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import memory.trust.rules as trust
from memory import format as fmt
from memory.errors import MemoryStoreError
from memory.writes.operations import Operation


@dataclass(frozen=True)
class Author:
    """Who a write is by. `role` says which rules apply (memory/trust/rules.py): a person's write is
    theirs; an agent's (`role="agent"`, set by its door: MCP, the Slack agent) is stamped,
    gated and turned into proposals by the write path. `origin` is what an agent's confirmation
    counts as (a Slack thread's permalink; `by <name>` when empty)."""

    name: str
    email: str
    role: str = trust.PERSON
    origin: str = ""

    @property
    def agent(self) -> trust.Agent | None:
        return trust.Agent(self.name, self.origin) if self.role == trust.AGENT else None


DREAMER = Author("hippo dreaming", "dream@hippo.invalid")
HIPPO = Author("hippo", "hippo@hippo.invalid")


@dataclass(frozen=True)
class WriteResult:
    commit: str
    created: bool
    removed: tuple[tuple[str, fmt.Entry], ...] = ()
    paths: tuple[str, ...] = ()


@dataclass
class WriteRequest:
    """One write queued for the group commit; the leader fills `result` or `error`."""

    ops: Sequence[Operation]
    author: Author
    message: str
    key: str | None
    trailers: Mapping[str, str]
    force: bool
    revert: str | None = None  # a commit to undo, turned into operations on the tip it lands on
    done: bool = False
    result: WriteResult | None = None
    error: MemoryStoreError | None = None
    event: threading.Event = field(default_factory=threading.Event)

    def outcome(self) -> WriteResult:
        """The result, or the error raised."""
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result

    def finish(self, outcome: WriteResult | MemoryStoreError | None) -> None:
        if isinstance(outcome, MemoryStoreError):
            self.error = outcome
        elif isinstance(outcome, WriteResult):
            self.result = outcome
        self.done = True
        self.event.set()
