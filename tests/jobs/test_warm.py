"""`warm(rt)`, which gunicorn's post_worker_init runs (bot/gunicorn_conf.py): after it, a web
worker's first enqueue builds and imports nothing (it used to cost its first acks ~50 ms), and a
broker that is down does not stop the process from starting."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jobs.celery_app import warm
from jobs.config import Config
from jobs.runtime import Runtime
from tests.paths import ROOT

FIRST_ENQUEUE = textwrap.dedent(
    """
    import json, sys
    from jobs.celery_app import warm
    from jobs.config import Config
    from jobs.runtime import Runtime
    from jobs.task_messages import SaveNote, send

    rt = Runtime(Config(redis_url=sys.argv[1], data_dir=sys.argv[2]))
    if sys.argv[3] == "warm":
        warm(rt)
    before = set(sys.modules)
    send(rt, SaveNote("a fact"), {"key": "k", "channel": "C1", "ts": "1.0", "user": "U1"})
    print(json.dumps(sorted(set(sys.modules) - before)))
    """
)


def first_enqueue_imports(redis_url: str, data: Path, mode: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", FIRST_ENQUEUE, redis_url, str(data), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_after_warm_the_first_enqueue_imports_nothing(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    cold = first_enqueue_imports(embedded_redis_url, tmp_path / "a", "cold")
    assert any(m.startswith("kombu.transport") for m in cold)  # what warm is for
    assert first_enqueue_imports(embedded_redis_url, tmp_path / "b", "warm") == []


def test_warm_with_the_broker_down_only_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rt = Runtime(Config(redis_url="redis://127.0.0.1:1/0", data_dir=tmp_path))
    warm(rt)  # returns: the first enqueue reports a broker that is still down
    assert "could not warm the broker connection" in caplog.text
