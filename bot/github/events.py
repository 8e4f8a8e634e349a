"""What hippo does with each GitHub event it is sent: handlers registered by (event, action) on
a `Router`, gidgethub's `@router.register("pull_request", action="closed")`.

A handler reads the payload's fields, queues ids for a task (a typed message), and says what it
did (the response's body). A handler registered without an action takes every action of its
event that has no handler of its own; a delivery nothing is registered for is answered
`{"ignored": "<event> <action>"}`. Reviews and comments are not handled one by one: they are read
from the API when the pull request closes, complete and in order; one delivery each would only
race with that read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jobs.github.tasks import record_agent_push, settings
from jobs.runtime import Runtime
from jobs.snapshots import is_memory_push
from jobs.task_messages import (
    CheckPullRequest,
    HandlePullRequest,
    Installation,
    MemoryPushed,
    send,
)
from memory.lessons.pull_requests import is_agent_pr

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


router = Router()


class Malformed(ValueError):
    """A signed delivery whose fields do not have the shape GitHub documents (400, not 500)."""


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _installation_id(payload: dict[str, Any]) -> int | None:
    """The delivery's GitHub App installation, when it names one (a whole number)."""
    value = _obj(payload.get("installation")).get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(pr: dict[str, Any], payload: dict[str, Any]) -> int:
    value = pr.get("number") or payload.get("number") or 0
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise Malformed(f"pull request number {value!r} is not a whole number")
    return int(value)


def _read_at_close(event: str) -> Handler:
    def ignore(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"ignored": f"{event} is read when the pull request closes"}

    return ignore


router.register("pull_request_review")(_read_at_close("pull_request_review"))
router.register("issue_comment")(_read_at_close("issue_comment"))


@router.register("installation")
def installation(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The app was installed, changed or removed: queue the installation task."""
    repos = [_obj(r).get("full_name", "") for r in payload.get("repositories") or []]
    send(
        rt,
        Installation(
            action=str(payload.get("action") or ""),
            installation_id=_installation_id(payload),
            repos=[r for r in repos if r],
        ),
    )
    return {"queued": "installation"}


def _agent_pull(rt: Runtime, payload: dict[str, Any]) -> tuple[str, int] | None:
    """(repository, number) of the delivery's pull request when an agent opened it (or it
    carries the agent label), else None."""
    pr = _obj(payload.get("pull_request"))
    repo = str(_obj(payload.get("repository")).get("full_name", ""))
    number = _number(pr, payload)
    opener = _obj(pr.get("user")).get("login", "")
    labels = [str(_obj(lb).get("name", "")) for lb in pr.get("labels") or []]
    config = rt.config
    if not repo or not number:
        return None
    if not is_agent_pr(opener, labels, config.agent_logins, config.agent_label):
        return None
    return repo, number


NOT_AGENT = {"ignored": "not an agent pull request"}


@router.register("pull_request", action="closed")
def closed(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """An agent pull request closed (merged or not): queue the lesson it may teach."""
    found = _agent_pull(rt, payload)
    if found is None:
        return NOT_AGENT
    repo, number = found
    sender = _obj(payload.get("sender"))
    send(
        rt,
        HandlePullRequest(
            delivery_id=delivery,
            installation_id=_installation_id(payload),
            repo_full_name=repo,
            number=number,
            action="closed",
            sender=str(sender.get("login", "")),
            sender_type=str(sender.get("type", "")),
        ),
    )
    return {"queued": "handle_pull_request"}


@router.register("pull_request", action="opened")
@router.register("pull_request", action="synchronize")
@router.register("pull_request", action="reopened")
def pushed(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A new head on an agent pull request: queue the pitfall check; record the agent's own."""
    found = _agent_pull(rt, payload)
    if found is None:
        return NOT_AGENT
    repo, number = found
    pr = _obj(payload.get("pull_request"))
    sha = str(payload.get("after") or _obj(pr.get("head")).get("sha", "") or "")
    sender = str(_obj(payload.get("sender")).get("login", ""))
    said = _queue_check(rt, repo, number, sha, _installation_id(payload))
    if sha and sender.lower() in {a.lower() for a in rt.config.agent_logins}:
        record_agent_push(rt, repo, number, sha)
        return {"recorded": sha, **said}
    return {"ignored": "a push by someone other than the agent", **said}


def _queue_check(
    rt: Runtime, repo: str, number: int, head_sha: str, installation_id: int | None
) -> dict[str, str]:
    """Queue the pitfall check for this head (when GitHub is configured)."""
    if not head_sha or not settings(rt).configured:
        return {}
    send(rt, CheckPullRequest(repo, number, head_sha, installation_id))
    return {"check": "queued"}


@router.register("push")
def memory_push(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A push to the memory repository's branch (the App installed on it): queue the task that
    publishes the prompt snapshot when the push changed MEMORY.md or a daily note
    (jobs/snapshots.py). Pushes to other repositories or branches are not hippo's to read."""
    repo = _obj(payload.get("repository"))
    urls = [str(repo.get(k) or "") for k in ("clone_url", "ssh_url", "git_url", "html_url")]
    ref = str(payload.get("ref") or "")
    if not is_memory_push(rt.config.remote, ref, urls):
        return {"ignored": "a push to another repository or branch than the memory's"}
    send(rt, MemoryPushed(after=str(payload.get("after") or "")))
    return {"queued": "memory_pushed"}
