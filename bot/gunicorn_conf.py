"""gunicorn's settings for hippo's web process (`hippo serve` and the Procfile pass
`--config python:bot.gunicorn_conf`): JSON logs, the access log, Prometheus multiprocess mode.

prometheus-client picks its storage when first imported, so the metrics folder is set in the
environment here, in the master, before any worker imports the app.
"""

from __future__ import annotations

import os
from typing import Any

from jobs.config import Config, metrics_folder
from jobs.metrics_dir import prepare

_config = Config.from_env()
# Written for prometheus-client (in this process and the workers it forks), which reads it.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = prepare(metrics_folder(_config))

from jobs import observe  # noqa: E402  (after the metrics folder is in the environment)

logconfig_dict = observe.dict_config("web", _config.log_format, _config.log_level)
# The access log (on: logconfig_dict routes it to stderr) with the request id hippo answered.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms %({x-request-id}o)s'
# gunicorn's control socket defaults to one path in $HOME shared by every instance on the host.
control_socket_disable = True


def child_exit(server: Any, worker: Any) -> None:
    """A gunicorn worker exited: drop its live gauges from the totals."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def post_worker_init(worker: Any) -> None:
    """Before this worker takes requests: connect to the broker, so its first acks do not; then
    move everything built so far (modules, the apps) out of the garbage collector's sight, so
    its full collections during requests walk only what requests allocate."""
    import gc

    from jobs.celery_app import warm

    rt = worker.wsgi.extensions.get("hippo")
    if rt is not None:
        warm(rt)
    gc.collect()
    gc.freeze()
