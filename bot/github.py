"""The GitHub front door: POST /github/webhook. Verify, dedupe, answer fast, enqueue ids.

GitHub waits 10 s and never retries on its own; a redelivery (by hand or API) carries the same
X-GitHub-Delivery GUID, which is the dedupe key here and the write path's idempotency key later.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from flask import Flask, Response, jsonify, request

from integrations import metrics
from integrations.github_client import verify_signature
from jobs.broker import BROKER_DOWN
from jobs.celery_app import enqueue
from jobs.github.checks import CHECK_PULL_REQUEST
from jobs.github.tasks import HANDLE_PULL_REQUEST, INSTALLATION, record_agent_push, settings
from jobs.runtime import Runtime
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
    claim = f"hippo:github:delivery:{delivery}"
    if not rt.redis.set(claim, "pending", nx=True, ex=PENDING_TTL):
        if rt.redis.get(claim) == b"pending":  # being queued now, or died with Redis
            return _reply(503, error="this delivery is being queued; redeliver it later")
        metrics.ACKS.labels("github", event, "duplicate").inc()
        return _reply(200, duplicate=True)
    try:
        said = dispatch(rt, event, delivery, payload)
    except Malformed as exc:
        rt.redis.delete(claim)  # a corrected redelivery must still count
        return _reply(400, error=str(exc))
    except Exception:
        rt.redis.delete(claim)  # nothing was queued: a redelivery must be able to try again
        raise
    rt.redis.set(claim, event, ex=DELIVERY_TTL)
    metrics.ACKS.labels("github", event, next(iter(said), "done")).inc()
    return _reply(202, **said)


class Malformed(ValueError):
    """A signed delivery whose fields do not have the shape GitHub documents (400, not 500)."""


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(pr: dict[str, Any], payload: dict[str, Any]) -> int:
    value = pr.get("number") or payload.get("number") or 0
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise Malformed(f"pull request number {value!r} is not a whole number")
    return int(value)


def _payload(raw: bytes, mimetype: str) -> Any:
    """The delivery's JSON: the body, or its `payload=` field when the hook posts forms."""
    if mimetype == "application/x-www-form-urlencoded":
        fields = parse_qs(raw.decode("utf-8"), strict_parsing=True)
        return json.loads(fields["payload"][-1]) if "payload" in fields else None
    return json.loads(raw)


def dispatch(rt: Runtime, event: str, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Route one verified, first-seen delivery; returns what the response says about it."""
    if event in ("pull_request_review", "issue_comment"):
        # Reviews and comments are read from the API when the pull request closes, complete and
        # in order; one delivery each would only race with that read.
        return {"ignored": f"{event} is read when the pull request closes"}
    handler = HANDLERS.get(event)
    if handler is None:
        return {"ignored": event}
    return handler(rt, delivery, payload)


def installation(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The app was installed, changed or removed: queue the installation task."""
    repos = [_obj(r).get("full_name", "") for r in payload.get("repositories") or []]
    enqueue(
        rt,
        INSTALLATION,
        action=str(payload.get("action") or ""),
        installation_id=_obj(payload.get("installation")).get("id"),
        repos=[r for r in repos if r],
    )
    return {"queued": "installation"}


def pull_request(rt: Runtime, delivery: str, payload: dict[str, Any]) -> dict[str, Any]:
    """An agent pull request: record the agent's pushes, queue the lesson when it closes."""
    action = str(payload.get("action") or "")
    pr = _obj(payload.get("pull_request"))
    repo = _obj(payload.get("repository")).get("full_name", "")
    number = _number(pr, payload)
    opener = _obj(pr.get("user")).get("login", "")
    labels = [str(_obj(lb).get("name", "")) for lb in pr.get("labels") or []]
    config = rt.config
    if (
        not repo
        or not number
        or not is_agent_pr(opener, labels, config.agent_logins, config.agent_label)
    ):
        return {"ignored": "not an agent pull request"}
    sender = _obj(payload.get("sender"))
    if action in ("opened", "synchronize", "reopened"):
        return _pushed(rt, payload, repo, number, str(sender.get("login", "")))
    if action != "closed":
        return {"ignored": f"pull_request {action}"}
    enqueue(
        rt,
        HANDLE_PULL_REQUEST,
        delivery_id=delivery,
        installation_id=_obj(payload.get("installation")).get("id"),
        repo_full_name=repo,
        number=number,
        action=action,
        sender=str(sender.get("login", "")),
        sender_type=str(sender.get("type", "")),
    )
    return {"queued": "handle_pull_request"}


def _pushed(
    rt: Runtime, payload: dict[str, Any], repo: str, number: int, sender: str
) -> dict[str, Any]:
    """A new head on an agent pull request: queue the pitfall check; record the agent's own."""
    pr = _obj(payload.get("pull_request"))
    sha = str(payload.get("after") or _obj(pr.get("head")).get("sha", "") or "")
    installation = _obj(payload.get("installation")).get("id")
    said = _queue_check(rt, repo, number, sha, installation)
    if sha and sender.lower() in {a.lower() for a in rt.config.agent_logins}:
        record_agent_push(rt, repo, number, sha)
        return {"recorded": sha, **said}
    return {"ignored": "a push by someone other than the agent", **said}


def _queue_check(
    rt: Runtime, repo: str, number: int, head_sha: str, installation_id: object
) -> dict[str, str]:
    """Queue the pitfall check for this head (when GitHub is configured)."""
    if not head_sha or not settings(rt).configured:
        return {}
    enqueue(
        rt,
        CHECK_PULL_REQUEST,
        repo_full_name=repo,
        number=number,
        head_sha=head_sha,
        installation_id=installation_id if isinstance(installation_id, int) else None,
    )
    return {"check": "queued"}


Handler = Callable[[Runtime, str, dict[str, Any]], dict[str, Any]]

# X-GitHub-Event → its handler (gidgethub's router, as a table); any other event is ignored.
HANDLERS: dict[str, Handler] = {"installation": installation, "pull_request": pull_request}
