"""Entry point for `celery -A jobs.worker worker|beat` (the Procfile's worker and beat).

Importing this module does nothing: Celery asks for its `app` attribute, and only then is the
Runtime built from the environment and the app made (`make_celery(..., worker=True)`).
"""

from __future__ import annotations

from functools import cache

from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from jobs.task_base import HippoCelery


@cache
def create_app() -> HippoCelery:
    """The worker's app, on a Runtime read from the environment; made once per process."""
    return make_celery(Runtime(Config.from_env()), worker=True)


def __getattr__(name: str) -> HippoCelery:
    if name == "app":  # what `celery -A jobs.worker` looks up
        return create_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
