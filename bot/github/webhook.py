"""The GitHub front door: POST /github/webhook. Verify, dedupe, answer fast; the event's handler
(bot/github/events.py, routed by (event, action)) enqueues ids.

GitHub waits 10 s and never retries on its own; a redelivery (by hand or API) carries the same
X-GitHub-Delivery GUID, which is the dedupe key here and the write path's idempotency key later.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from flask import Flask, Response, jsonify, request

from bot.github.events import Malformed, router
from integrations import metrics
from integrations.github_client import verify_signature
from jobs import keys
from jobs.broker import BROKER_DOWN
from jobs.claims import PENDING, Claim
from jobs.runtime import Runtime

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
