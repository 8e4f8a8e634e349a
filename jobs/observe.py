"""Logs: JSON lines when stderr is not a terminal, each carrying the request context's ids.

Every log line of a request or task carries its request id (jobs/context.py: made when a
request arrives, carried by the task it queues) and the id the caller sent, as
`caller_request_id`.

Logging is the stdlib's: `install` adds one handler on the root logger (JSON via
python-json-logger, or text on a terminal); gunicorn gets the same through `dict_config`. Its
filter keeps secrets out of every line: Celery's task lines (received, failed, retried…) lose
the task's arguments, which carry note text and whatever a person pasted, and a request line's
`code`, `state` and `token` query values (the Slack OAuth redirect's, sign-in's) are redacted.
"""

from __future__ import annotations

import logging
import logging.config
import re
import sys
from typing import Any

from jobs import context

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(process)d"
_role = "cli"


# Celery's task log records carry the task's arguments in `data` (and in `args`, the format's
# values): a note's text, a token hippo refused to store. Names and ids are enough.
_TASK_ARGUMENTS = ("args", "kwargs")
_SECRET_QUERY = re.compile(r"([?&](?:code|state|token|access_token)=)[^&\s\"]*")


def redact_query(text: str) -> str:
    """`text` (a request line, a URL) with its code, state and token query values redacted."""
    return _SECRET_QUERY.sub(r"\1[redacted]", text)


def _without_arguments(values: Any) -> Any:
    if isinstance(values, dict) and any(k in values for k in _TASK_ARGUMENTS):
        return {k: v for k, v in values.items() if k not in _TASK_ARGUMENTS}
    return values


def _scrub(record: logging.LogRecord) -> None:
    """Keep task arguments and OAuth codes out of the line, whatever formatter runs."""
    if record.name.startswith("celery"):
        data = getattr(record, "data", None)
        if isinstance(data, dict):
            record.data = _without_arguments(data)
        record.args = _without_arguments(record.args)
    elif record.name == "gunicorn.access" and isinstance(record.args, dict):
        record.args = {
            k: redact_query(v) if isinstance(v, str) else v for k, v in record.args.items()
        }
    elif record.name == "werkzeug" and isinstance(record.args, tuple):
        record.args = tuple(redact_query(a) if isinstance(a, str) else a for a in record.args)


class ContextFilter(logging.Filter):
    """Puts the request id (and the caller's, when one came), the task and the process role on
    every record, and scrubs secrets from it (`_scrub`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        _scrub(record)
        now = context.current()
        if not getattr(record, "request_id", ""):
            record.request_id = now.request_id
        caller = now.caller_id
        if caller and not getattr(record, "caller_request_id", ""):
            record.caller_request_id = caller
        if record.name == "gunicorn.access" and isinstance(record.args, dict):
            # gunicorn logs after the request ended: take the id from the response header
            sent = str(record.args.get("{x-request-id}o", "-"))
            record.request_id = "" if sent == "-" else sent
        if not getattr(record, "task", ""):
            record.task = now.task
        record.role = _role
        return True


def json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        JSON_FIELDS,
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        datefmt="%Y-%m-%dT%H:%M:%S%z",
    )


def use_json(log_format: str) -> bool:
    """HIPPO_LOG_FORMAT: json, text, or auto (JSON unless stderr is a terminal)."""
    if log_format in ("json", "text"):
        return log_format == "json"
    return not sys.stderr.isatty()


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A StreamHandler on whatever sys.stderr is when it writes (a test runner swaps it)."""

    _hippo = True

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def install(role: str, log_format: str = "auto", level: str = "INFO") -> logging.Handler:
    """Log to stderr from this process as `role` (web, worker, beat, cli). Replaces a handler an
    earlier call installed and leaves others alone (a test runner's, gunicorn's)."""
    global _role
    _role = role
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_hippo", False)]:
        root.removeHandler(old)
    handler = StderrHandler()
    handler.addFilter(ContextFilter())
    handler.setFormatter(
        json_formatter() if use_json(log_format) else logging.Formatter(TEXT_FORMAT)
    )
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler


def dict_config(role: str, log_format: str = "auto", level: str = "INFO") -> dict[str, Any]:
    """The same as `install`, as a logging dictConfig (gunicorn's `logconfig_dict`): the root,
    gunicorn's error log and its access log all through our handler on stderr."""
    global _role
    _role = role
    fmt: dict[str, Any] = (
        {"()": "jobs.observe.json_formatter"} if use_json(log_format) else {"format": TEXT_FORMAT}
    )
    handler = {
        "class": "jobs.observe.StderrHandler",
        "formatter": "hippo",
        "filters": ["context"],
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "jobs.observe.ContextFilter"}},
        "formatters": {"hippo": fmt},
        "handlers": {"console": handler, "error_console": handler},
        "root": {"level": level.upper(), "handlers": ["console"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": True},
        },
    }
