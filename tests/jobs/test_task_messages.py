"""Typed task messages: one per task, each field a parameter its task takes, each required
parameter of a task given by its message (or a Slack request's context), and `send` refusing
what does not fit before anything is queued."""

from __future__ import annotations

import inspect
from dataclasses import fields
from pathlib import Path

import pytest

from bot.slack.intent import SlackContext
from jobs import task_messages as m
from jobs.celery_app import make_celery, registered_tasks
from jobs.config import Config
from jobs.runtime import Runtime

CONTEXT = {f.name for f in fields(SlackContext)} | {"team"}  # `team`: added by `send`


@pytest.fixture
def app(tmp_path: Path, embedded_redis_url: str) -> object:
    return make_celery(Runtime(Config(data_dir=tmp_path, redis_url=embedded_redis_url)))


def _parameters(app: object, message: type[m.Message]) -> dict[str, inspect.Parameter]:
    run = app.tasks[message.TASK].run  # type: ignore[attr-defined]
    return dict(inspect.signature(run).parameters)


def test_one_message_per_task(app: object) -> None:
    names = [message.TASK for message in m.MESSAGES]
    assert len(names) == len(set(names))
    assert set(names) == registered_tasks(app)  # type: ignore[arg-type]


def test_every_field_is_a_parameter_of_its_task(app: object) -> None:
    """A field the task does not name would land in its **kwargs unread: each is named, or (an
    optional field) read from the task's keyword arguments."""
    unnamed = []
    for message in m.MESSAGES:
        params = _parameters(app, message)
        takes_more = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for f in fields(message):  # type: ignore[arg-type]
            optional = f.default is None
            if f.name not in params and not (optional and takes_more):
                unnamed.append(f"{message.__name__}.{f.name}")
    assert unnamed == []


def test_every_required_parameter_comes_from_the_message_or_the_context(app: object) -> None:
    missing = []
    for message in m.MESSAGES:
        given = {f.name for f in fields(message)} | CONTEXT  # type: ignore[arg-type]
        for name, p in _parameters(app, message).items():
            required = p.kind is p.KEYWORD_ONLY and p.default is p.empty
            if required and name not in given:
                missing.append(f"{message.TASK}: {name}")
    assert missing == []


def test_a_wrong_field_fails_where_the_message_is_built() -> None:
    with pytest.raises(TypeError):
        m.SaveNote(txt="a fact")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        m.Forget()  # type: ignore[call-arg]


def test_optional_fields_left_none_are_not_sent_required_ones_are() -> None:
    assert m.InstructionsList().kwargs() == {}
    assert m.InstructionsAdd("x", "octo/app").kwargs() == {"text": "x", "repo": "octo/app"}
    sent = m.CheckPullRequest("octo/app", 3, "abc").kwargs()
    assert sent == {"repo_full_name": "octo/app", "number": 3, "head_sha": "abc"}
    pr = m.HandlePullRequest("d1", None, "octo/app", 3, "closed").kwargs()
    assert pr["installation_id"] is None  # required: sent as it is


def test_send_refuses_a_field_the_context_sets_too_and_queues_nothing(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    rt = Runtime(Config(data_dir=tmp_path, redis_url=embedded_redis_url))
    rt.redis.flushall()
    with pytest.raises(ValueError, match="channel"):
        m.send(rt, m.Answer("why?", channel="C1"), {"channel": "C2", "key": "k"})
    assert rt.redis.llen("celery") == 0
    m.send(rt, m.Answer("why?"), {"channel": "C2", "key": "k"})
    assert rt.redis.llen("celery") == 1


def test_the_queued_message_shows_its_arguments_as_celery_would(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    """kwargsrepr (Flower, the worker's log) is written by `send`, cut at Celery's 1024."""
    import json

    rt = Runtime(Config(data_dir=tmp_path, redis_url=embedded_redis_url))
    rt.redis.flushall()
    m.send(rt, m.Answer("why?"), {"channel": "C2", "key": "k"})
    m.send(rt, m.Answer("x" * 5000), {"channel": "C2", "key": "k2"})
    short, long = [json.loads(raw)["headers"] for raw in rt.redis.lrange("celery", 0, -1)[::-1]]
    assert short["argsrepr"] == "()"
    assert short["kwargsrepr"] == repr({"channel": "C2", "key": "k", "text": "why?"})
    assert len(long["kwargsrepr"]) == 1024 and long["kwargsrepr"].endswith("...")
