"""GitHub events are routed by (event, action), gidgethub's way: the action's own handler, else
the event's any-action handler, else "ignored"."""

from __future__ import annotations

from typing import Any

import pytest

from bot.github import Router, router
from jobs.config import Config
from jobs.runtime import Runtime


def test_the_actions_handler_wins_over_the_events_and_the_rest_is_ignored() -> None:
    r = Router()
    said: list[str] = []

    @r.register("pull_request", action="closed")
    def closed(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
        said.append("closed")
        return {"queued": delivery}

    @r.register("pull_request")
    def other(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
        said.append("other")
        return {"other": delivery}

    rt = Runtime(Config())  # nothing connects: the handlers here touch nothing
    assert r.dispatch(rt, "pull_request", "d1", {"action": "closed"}) == {"queued": "d1"}
    assert r.dispatch(rt, "pull_request", "d2", {"action": "edited"}) == {"other": "d2"}
    assert r.dispatch(rt, "push", "d3", {}) == {"ignored": "push"}
    assert r.dispatch(rt, "issues", "d4", {"action": "opened"}) == {"ignored": "issues opened"}
    assert said == ["closed", "other"]
    with pytest.raises(ValueError, match="has a handler already"):
        r.register("pull_request", action="closed")(closed)


def test_hippos_router_handles_what_the_front_door_documents() -> None:
    for event, action in [
        ("pull_request", "closed"),
        ("pull_request", "opened"),
        ("pull_request", "synchronize"),
        ("pull_request", "reopened"),
        ("installation", "created"),
        ("installation", "deleted"),
        ("pull_request_review", "submitted"),
        ("issue_comment", "created"),
    ]:
        assert router.handler(event, action) is not None, (event, action)
    assert router.handler("pull_request", "labeled") is None
