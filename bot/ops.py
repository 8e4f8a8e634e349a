"""What operators use: the request id, /healthz, /readyz, /metrics, and request metrics.

Every request gets a request id of hippo's own (logs, the Celery tasks it queues, their commits'
`Hippo-Request:` trailer) returned as `X-Request-ID`. An id the caller sent in `X-Request-ID` (a
proxy's, Heroku's router's, or anyone's) never goes into history: it is logged beside hippo's as
`caller_request_id`, so the two can be matched, and is otherwise ignored.
"""

from __future__ import annotations

import time
from typing import Literal

from flask import Flask, Response, g, jsonify, request

from integrations import metrics
from jobs import context, health
from jobs.runtime import Runtime

QUEUES = ("celery",)  # the Celery queues hippo uses (the default one)

Readiness = Literal["ready", "not ready"]  # /readyz's "status"


def register(app: Flask, rt: Runtime) -> None:
    _install_request_hooks(app)
    _install_routes(app, rt)


def _install_request_hooks(app: Flask) -> None:
    """Request id in and out, and the request metrics, around every route."""

    @app.before_request
    def _start() -> None:
        g.hippo_started = time.monotonic()
        caller = request.headers.get("X-Request-ID", "")
        g.hippo_tokens = context.begin(context.new_id(), caller=caller)

    @app.after_request
    def _finish(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        started = g.get("hippo_started")
        if started is not None:
            metrics.HTTP_SECONDS.labels(route).observe(time.monotonic() - started)
        metrics.HTTP_REQUESTS.labels(route, str(response.status_code)).inc()
        response.headers["X-Request-ID"] = context.current().request_id
        return response

    @app.teardown_request
    def _unbind(_exc: BaseException | None) -> None:
        tokens = g.pop("hippo_tokens", None)
        if tokens is not None:
            context.reset(tokens)


def _install_routes(app: Flask, rt: Runtime) -> None:
    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        """Alive: the process answers. Nothing else is checked (that is /readyz)."""
        return {"status": "ok"}

    @app.get("/readyz")
    def readyz() -> Response:
        """Ready: Redis answers, the memory remote answers, a worker beat in the last minute."""
        ages: dict[str, float] = {}
        checks = health.readiness(rt, rt.config.ready_timeout, rt.config.ready_cache, ages)
        problems = {name: why for name, why in checks.items() if why}
        status: Readiness = "not ready" if problems else "ready"
        body = {
            "status": status,
            "checks": {name: why or "ok" for name, why in checks.items()},
            # How old each reused answer is: the remote's is kept HIPPO_READY_CACHE seconds.
            "age_seconds": ages,
        }
        response = jsonify(body)
        response.status_code = 503 if problems else 200
        return response

    @app.get("/metrics")
    def prometheus() -> Response:
        def depth() -> list[tuple[str, float]]:
            pipe = rt.redis.pipeline(transaction=False)
            for queue in QUEUES:
                pipe.llen(queue)
            return [(q, float(n)) for q, n in zip(QUEUES, pipe.execute(), strict=True)]

        gauges = {"hippo_queue_depth": ("Tasks waiting in the Celery queue", depth)}
        body, content_type = metrics.exposition(rt.config.metrics_dir, gauges)
        return Response(body, content_type=content_type)
