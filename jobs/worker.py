"""Entry point for `celery -A jobs.worker worker|beat`: the Celery app, from the environment."""

from jobs.celery_app import make_celery
from jobs.config import Config

app = make_celery(Config.from_env(), worker=True)
