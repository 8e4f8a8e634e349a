"""The worker's lower priority (jobs/niceness.py): every thread, those started later, capped at 19.

Niceness only goes up for an unprivileged process, so each case runs in a child process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.niceness import Niceness
from jobs.runtime import Runtime
from tests.conftest import ROOT

CHILD = """
import json, os, sys, threading
from types import SimpleNamespace
from jobs.config import Config
from jobs.niceness import Niceness

def nice():
    return os.getpriority(os.PRIO_PROCESS, 0)

start = nice()
seen = {}
ready, done = threading.Event(), threading.Event()
def before():
    ready.set(); done.wait(); seen["before"] = nice()
t = threading.Thread(target=before); t.start(); ready.wait()
worker = SimpleNamespace(app=SimpleNamespace(runtime=SimpleNamespace(config=Config(worker_nice=int(sys.argv[1])))))
Niceness(worker)
done.set(); t.join()
after = threading.Thread(target=lambda: seen.__setitem__("after", nice())); after.start(); after.join()
print(json.dumps({"start": start, "main": nice(), **seen}))
"""


def _run(by: int) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(by)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result: dict[str, int] = json.loads(out.stdout)
    return result


def test_the_worker_lowers_every_thread_and_new_ones_inherit_it() -> None:
    seen = _run(10)
    want = min(19, seen["start"] + 10)
    assert seen["main"] == seen["before"] == seen["after"] == want


def test_zero_leaves_the_priority_alone_and_nineteen_is_the_floor() -> None:
    seen = _run(0)
    assert seen["main"] == seen["before"] == seen["after"] == seen["start"]
    assert _run(40)["main"] == 19


def test_the_setting_and_the_worker_step(tmp_path: Path) -> None:
    assert Config.from_env({}).worker_nice == 10
    assert Config.from_env({"HIPPO_WORKER_NICE": "0"}).worker_nice == 0
    rt = Runtime(Config(data_dir=tmp_path))
    try:
        assert Niceness in make_celery(rt, worker=True).steps["worker"]
        # an app run by a worker inside another process (tests) leaves that process alone
        assert Niceness not in make_celery(rt).steps["worker"]
    finally:
        rt.close()
