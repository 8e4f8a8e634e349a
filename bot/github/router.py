"""Webhook events to handlers, by (event, action): gidgethub's `@router.register(...)`.

    router = Router()

    @router.register("pull_request", action="closed")
    def closed(rt, delivery, payload): ...

A handler registered without an action takes every action of its event that has no handler of
its own. A delivery nothing is registered for is answered `{"ignored": "<event> <action>"}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jobs.runtime import Runtime

# (runtime, delivery GUID, payload) → what the response says about the delivery
Handler = Callable[[Runtime, str, dict[str, Any]], dict[str, Any]]


class Router:
    """Handlers keyed by (event, action); `None` as the action: any action."""

    def __init__(self) -> None:
        self._handlers: dict[tuple[str, str | None], Handler] = {}

    def register(self, event: str, *, action: str | None = None) -> Callable[[Handler], Handler]:
        def add(handler: Handler) -> Handler:
            if (event, action) in self._handlers:
                raise ValueError(f"{event} {action or '(any action)'} has a handler already")
            self._handlers[(event, action)] = handler
            return handler

        return add

    def handler(self, event: str, action: str) -> Handler | None:
        found = self._handlers.get((event, action))
        return found if found is not None else self._handlers.get((event, None))

    def dispatch(
        self, rt: Runtime, event: str, delivery: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """Run the delivery's handler; returns what the response says about it."""
        action = str(payload.get("action") or "")
        handler = self.handler(event, action)
        if handler is None:
            return {"ignored": f"{event} {action}".strip()}
        return handler(rt, delivery, payload)
