"""The GitHub front door: POST /github/webhook. Verify, dedupe, answer fast; the delivery's
handler, registered by (event, action) on a `Router` (gidgethub's
`@router.register("pull_request", action="closed")`), enqueues ids.

GitHub waits 10 s and never retries on its own; a redelivery (by hand or API) carries the same
X-GitHub-Delivery GUID, which is the dedupe key here and the write path's idempotency key later.

A handler reads the payload's fields, queues ids for a task (a typed message), and says what it
did (the response's body). A handler registered without an action takes every action of its
event that has no handler of its own; a delivery nothing is registered for is answered
`{"ignored": "<event> <action>"}`. Reviews and comments are not handled one by one: they are read
from the API when the pull request closes, complete and in order; one delivery each would only
race with that read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from flask import Flask, Response, jsonify, request

from integrations import metrics
from integrations.github_client import verify_signature
from jobs import keys
from jobs.broker import BROKER_DOWN
from jobs.github.tasks import record_agent_push, settings
from jobs.keys import PENDING, Claim
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

DELIVERY_TTL = 7 * 24 * 3600  # GitHub keeps deliveries redeliverable for 3 days
PENDING_TTL = 60  # a claim whose enqueue never finished (Redis went away mid-way) expires


def _reply(status: int, **body: Any) -> Response:
    response = jsonify(body)
    response.status_code = status
    return response


def register(app: Flask, rt: Runtime) -> None:
    @app.post("/github/webhook")
    def github_webhook() -> Response:
        try:
            return _handle(rt)
        except BROKER_DOWN as exc:
            # Nothing was queued. GitHub marks the delivery failed; redeliver it (by hand, or
            # from the API's list of failed deliveries) once Redis is back.
            response = _reply(503, error=f"hippo's queue (Redis) is unreachable: {exc}")
            response.headers["Retry-After"] = "30"
            return response


def _handle(rt: Runtime) -> Response:
    """Verify, dedupe, dispatch one delivery."""
    raw = request.get_data(cache=True)  # the raw bytes: re-serialized JSON never verifies
    secret = rt.config.github_webhook_secret
    if not verify_signature(secret, raw, request.headers.get("X-Hub-Signature-256")):
        why = "bad or missing X-Hub-Signature-256" if secret else "GITHUB_WEBHOOK_SECRET unset"
        return _reply(401, error=why)
    event = request.headers.get("X-GitHub-Event", "")
    delivery = request.headers.get("X-GitHub-Delivery", "")
    if event == "ping":
        return _reply(200, ok=True, zen="pong")
    if not delivery:
        return _reply(400, error="missing X-GitHub-Delivery")
    try:
        payload = _payload(raw, request.mimetype)
    except ValueError:
        return _reply(400, error="the body is neither JSON nor a form with a JSON payload")
    if not isinstance(payload, dict):
        return _reply(400, error="the body is not a JSON object")
    claim = Claim(rt.redis, keys.github_delivery(delivery), pending=PENDING_TTL, done=DELIVERY_TTL)
    if not claim.take():
        if claim.holder() == PENDING:  # being queued now, or died with Redis
            return _reply(503, error="this delivery is being queued; redeliver it later")
        metrics.ACKS.labels("github", event, "duplicate").inc()
        return _reply(200, duplicate=True)
    try:
        said = router.dispatch(rt, event, delivery, payload)
    except Malformed as exc:
        claim.release()  # a corrected redelivery must still count
        return _reply(400, error=str(exc))
    except Exception:
        claim.release()  # nothing was queued: a redelivery must be able to try again
        raise
    claim.finish(event)
    metrics.ACKS.labels("github", event, next(iter(said), "done")).inc()
    return _reply(202, **said)


def _payload(raw: bytes, mimetype: str) -> Any:
    """The delivery's JSON: the body, or its `payload=` field when the hook posts forms."""
    if mimetype == "application/x-www-form-urlencoded":
        fields = parse_qs(raw.decode("utf-8"), strict_parsing=True)
        return json.loads(fields["payload"][-1]) if "payload" in fields else None
    return json.loads(raw)


# -- the handlers, by (event, action) -------------------------------------------------------------
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
