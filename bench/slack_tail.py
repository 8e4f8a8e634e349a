"""gunicorn settings for `bench/slack.py --tail`: the Procfile's (bot.gunicorn_conf) plus hooks
that write, for every request, where its time went, to find what makes the slow acks slow:

- wall: from gunicorn's pre_request to post_request (the app's time, as the access log's);
- cpu: the handling thread's CPU time (time.thread_time);
- runq: the thread's wait on the run queue, ready but without a core (/proc/.../schedstat);
- the rest (wall - cpu - runq) is sleep: Redis round trips and the GIL (another thread of the
  same worker running Python).

One JSON line per request in $HIPPO_BENCH_TAIL.<pid>; bench/slack.py reads them back. With
HIPPO_BENCH_PROFILE set, each request is also profiled by CPU time (cProfile, per thread) and
the profiles are written to $HIPPO_BENCH_TAIL.<pid>.<thread>.prof as the worker exits.
"""

from __future__ import annotations

import cProfile
import json
import os
import threading
import time
from typing import Any

from bot.gunicorn_conf import *  # noqa: F403  (the Procfile's settings, hooks and all)
from bot.gunicorn_conf import post_worker_init as _post_worker_init

_local = threading.local()
_out: list[Any] = []
_profiles: dict[int, cProfile.Profile] = {}


def _schedstat() -> tuple[int, int]:
    """(ns on a core, ns ready on the run queue) of the calling thread."""
    with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
        on_cpu, waiting, _ = f.read().split()
    return int(on_cpu), int(waiting)


def post_worker_init(worker: Any) -> None:
    _post_worker_init(worker)
    _out.append(open(f"{os.environ['HIPPO_BENCH_TAIL']}.{os.getpid()}", "a", buffering=1))  # noqa: SIM115


def pre_request(worker: Any, req: Any) -> None:
    if os.environ.get("HIPPO_BENCH_PROFILE"):
        tid = threading.get_native_id()
        prof = _profiles.setdefault(tid, cProfile.Profile(time.thread_time))
        prof.enable()
    _local.start = (time.perf_counter(), time.thread_time(), _schedstat()[1])


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    wall, cpu, waiting = _local.start
    row = {
        "at": time.time(),
        "wall": (time.perf_counter() - wall) * 1e3,
        "cpu": (time.thread_time() - cpu) * 1e3,
        "runq": (_schedstat()[1] - waiting) / 1e6,
        "status": getattr(resp, "status_code", 0),
    }
    _out[0].write(json.dumps(row) + "\n")
    prof = _profiles.get(threading.get_native_id())
    if prof is not None:
        prof.disable()


def worker_exit(server: Any, worker: Any) -> None:
    for tid, prof in _profiles.items():
        prof.dump_stats(f"{os.environ['HIPPO_BENCH_TAIL']}.{os.getpid()}.{tid}.prof")
