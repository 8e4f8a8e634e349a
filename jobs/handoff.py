"""The group commit across hosts: writers sharing one Redis (and so one Redis writer lock) hand
their writes to whichever process holds the lock, the three stages of memory/git/handoff.py kept
in Redis instead of a folder (memory/ does no network I/O, so the Redis side lives here).

    pending (list)   tickets offered, oldest first; req:<ticket> holds the write (JSON)
    claimed (list)   tickets the lock holder took, only while it holds the lock
    done:<ticket>    the outcome (JSON), kept DONE_TTL seconds for its process to read

Each step is one atomic command (LREM takes an offer back only if nobody claimed it, LMOVE
claims one), so a holder that dies mid-batch leaves its claims in `claimed`, and the next holder
(once the lock's TTL frees it) writes them again; their keys make a push that landed count once.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from typing import Any

from jobs import keys
from memory.git.batch import WriteRequest
from memory.git.handoff import Outcome, dump_outcome, dump_request, load_outcome, load_request

OFFER_TTL = 3600  # an offer nobody claimed for an hour is dropped (its process gave up long ago)
DONE_TTL = 600


class RedisHandoff:
    """memory.git.handoff.Handoff over a Redis client shared by every host of one workspace."""

    def __init__(self, client: Any, workspace: str) -> None:
        self._r = client
        self._ws = workspace
        self._pending = keys.handoff_pending(workspace)
        self._claimed = keys.handoff_claimed(workspace)

    def _req(self, ticket: str) -> str:
        return keys.handoff_request(self._ws, ticket)

    def _done(self, ticket: str) -> str:
        return keys.handoff_done(self._ws, ticket)

    def offer(self, request: WriteRequest) -> str:
        ticket = uuid.uuid4().hex
        data = dump_request(request, request.key or f"handoff:{ticket}")
        pipe = self._r.pipeline()
        pipe.set(self._req(ticket), data, ex=OFFER_TTL)
        pipe.rpush(self._pending, ticket)
        pipe.execute()
        return ticket

    def withdraw(self, ticket: str) -> bool:
        if not self._r.lrem(self._pending, 1, ticket):
            return False
        self._r.delete(self._req(ticket))
        return True

    def claim(self, limit: int) -> list[tuple[str, WriteRequest]]:
        taken = [_text(t) for t in self._r.lrange(self._claimed, 0, -1)]  # a dead holder's
        while len(taken) < limit:
            ticket = self._r.lmove(self._pending, self._claimed, "LEFT", "RIGHT")
            if ticket is None:
                break
            taken.append(_text(ticket))
        if not taken:
            return []
        out = []
        for ticket, data in zip(taken, self._r.mget([self._req(t) for t in taken]), strict=True):
            if data is None:
                self._r.lrem(self._claimed, 1, ticket)  # expired: its process gave up
                continue
            try:
                out.append((ticket, load_request(data)))
            except (ValueError, KeyError, TypeError):
                self._r.lrem(self._claimed, 1, ticket)  # not a write: never ours to make
        return out

    def waiting(self) -> int:
        return int(self._r.llen(self._pending))

    def answer(self, ticket: str, outcome: Outcome) -> None:
        pipe = self._r.pipeline()
        pipe.set(self._done(ticket), dump_outcome(outcome), ex=DONE_TTL)
        pipe.lrem(self._claimed, 1, ticket)
        pipe.delete(self._req(ticket))
        pipe.execute()

    def outcomes(self, tickets: Collection[str]) -> dict[str, Outcome]:
        wanted = list(tickets)
        if not wanted:
            return {}
        answers = self._r.mget([self._done(t) for t in wanted])
        found = {t: d for t, d in zip(wanted, answers, strict=True) if d}
        if found:
            self._r.delete(*(self._done(t) for t in found))
        return {t: load_outcome(d) for t, d in found.items()}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
