"""Prometheus metrics (prometheus-client): every counter hippo keeps, in one place.

Defined at the bottom layer so web, worker and integrations can all count. With
PROMETHEUS_MULTIPROC_DIR set (`hippo serve` sets it for gunicorn's workers) each process writes
its values to files there and `/metrics` sums them; without it they live in this process.
Gauges that depend on the moment (queue depth) are read at scrape time by `exposition`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

# Gauges read at scrape time: name → (help, a function giving (queue label, value) pairs).
Gauges = Mapping[str, tuple[str, Callable[[], Iterable[tuple[str, float]]]]]

HTTP_REQUESTS = Counter(
    "hippo_http_requests", "HTTP requests answered, by route and status", ["route", "status"]
)
HTTP_SECONDS = Histogram(
    "hippo_http_request_seconds",
    "Time to answer an HTTP request (for Slack and GitHub: the ack)",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
ACKS = Counter(
    "hippo_acks",
    "Slack and GitHub requests acknowledged, by source, kind and outcome (queued, duplicate…)",
    ["source", "kind", "outcome"],
)
NOTES_SAVED = Counter("hippo_notes_saved", "Notes saved (a new commit), by front door", ["via"])
WRITE_SECONDS = Histogram(
    "hippo_write_seconds",
    "Time from a write's request to its pushed commit",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
WRITES_REFUSED = Counter(
    "hippo_writes_refused", "Writes the write path refused, by error", ["error"]
)
PUSH_RETRIES = Counter(
    "hippo_push_retries", "Pushes that lost a race (the remote moved) and were re-applied"
)
TASKS = Counter("hippo_tasks", "Celery tasks run, by task and state", ["task", "state"])
DREAM_SECONDS = Histogram(
    "hippo_dream_seconds",
    "Duration of one dream",
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600),
)
DREAM_STEPS = Counter("hippo_dream_steps", "Dream steps, by whether they committed", ["committed"])
VERIFIER_CALLS = Counter(
    "hippo_verifier_calls",
    "Claims checked by a verifier, by verifier and result",
    ["verifier", "result"],
)
LLM_TOKENS = Counter("hippo_llm_tokens", "Tokens of Claude calls, by kind", ["kind"])


def observe_write(event: str, seconds: float) -> None:
    """The write path's observer (memory.git.writer.Observer)."""
    if event == "write":
        WRITE_SECONDS.observe(seconds)
    elif event == "push_retry":
        PUSH_RETRIES.inc()
    elif event.startswith("refused:"):
        WRITES_REFUSED.labels(event.removeprefix("refused:")).inc()


class _Gauges(Collector):
    """Gauges read when scraped (e.g. queue depth from Redis): name → (help, read)."""

    def __init__(self, gauges: Gauges):
        self.gauges = gauges

    def collect(self) -> Iterable[Metric]:
        for name, (doc, read) in self.gauges.items():
            family = GaugeMetricFamily(name, doc, labels=["queue"])
            try:
                for label, value in read():
                    family.add_metric([label], value)
            except Exception:  # an unreachable Redis: /readyz says so; leave the gauge empty
                pass
            yield family


def registry(multiprocess_dir: str) -> CollectorRegistry:
    """Every process's values in multiprocess mode (PROMETHEUS_MULTIPROC_DIR, given as
    `multiprocess_dir`), else this process's."""
    if not multiprocess_dir:
        return REGISTRY
    from prometheus_client import multiprocess

    summed = CollectorRegistry()
    multiprocess.MultiProcessCollector(summed)  # type: ignore[no-untyped-call]
    return summed


def serve(port: int, multiprocess_dir: str, addr: str = "0.0.0.0") -> Callable[[], None]:
    """Serve /metrics on `port` from a thread (a worker has no web server); returns stop()."""
    from prometheus_client import start_http_server

    server, thread = start_http_server(port, addr, registry=registry(multiprocess_dir))

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return stop


def exposition(multiprocess_dir: str, gauges: Gauges | None = None) -> tuple[bytes, str]:
    """The text exposition of every metric (summed over processes in multiprocess mode), then
    the scrape-time gauges."""
    out = generate_latest(registry(multiprocess_dir))
    if gauges:
        extra = CollectorRegistry()
        extra.register(_Gauges(gauges))
        out += generate_latest(extra)
    return out, CONTENT_TYPE_LATEST
