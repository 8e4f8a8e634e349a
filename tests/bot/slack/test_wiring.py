"""The wiring holds: every task a front door queues is a registered Celery task, and everything
manifest.yml declares (and every button hippo's messages carry) has a registered Bolt listener."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from slack_bolt import App, BoltRequest, BoltResponse

from bot.slack.app import make_slack_app
from bot.slack.intake import INTENTS
from jobs.celery_app import make_celery, registered_tasks
from jobs.runtime import Runtime
from jobs.task_messages import Message
from tests.paths import ROOT


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _value(node: ast.expr, module: Any) -> str | None:
    """A string literal, a module-level name (resolved on the imported module), or an f-string
    with its fields filled by 0 (`f"forget_pick_{i}"` → "forget_pick_0"); None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        value = getattr(module, node.id, None)
        if isinstance(value, type) and issubclass(value, Message) and value is not Message:
            return value.TASK  # a task's typed message names its task
        return value if isinstance(value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts = [_value(v, module) if isinstance(v, ast.Constant) else "0" for v in node.values]
        return "".join(p or "" for p in parts)
    return None


# gunicorn's config file sets PROMETHEUS_MULTIPROC_DIR and creates its folder when imported (it
# must, before gunicorn's workers import the app); it names no task.
NOT_IMPORTED = {"gunicorn_conf.py"}
TASK_NAME = re.compile(r"hippo\.[a-z_]+\.[a-z_]+")  # "hippo.slack.save_note"


def queued_tasks() -> dict[str, str]:
    """Task name → where bot/ names it: every string literal, and every name that resolves to a
    string (a constant of the module or one it imports) or to a task's message class, shaped
    like a task name. Intents, listeners that build their own Intent and the webhook's messages
    all count."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path.name in NOT_IMPORTED:
            continue
        module = importlib.import_module(_module(path))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant | ast.Name):
                name = _value(node, module)
                if name is not None and TASK_NAME.fullmatch(name):
                    found[name] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def action_ids() -> set[str]:
    """Every `"action_id": …` in the Block Kit hippo posts (jobs/, memory/)."""
    found: set[str] = set()
    for package in ("jobs", "memory"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text())
            dicts = [n for n in ast.walk(tree) if isinstance(n, ast.Dict)]
            pairs = [(k, v) for d in dicts for k, v in zip(d.keys, d.values, strict=True)]
            for key, value in pairs:
                if isinstance(key, ast.Constant) and key.value == "action_id":
                    module = importlib.import_module(_module(path))
                    name = _value(value, module)
                    assert name is not None, f"{path.name}:{value.lineno}: action_id not constant"
                    found.add(name)
    return found


def test_every_task_a_front_door_queues_is_registered(slack_runtime: Runtime) -> None:
    """Each intent's task (and every other task bot/ queues) is a task the Celery app knows."""
    queued = queued_tasks()
    for parse in INTENTS:  # the scan sees every parser's intents: each module is in bot/slack
        assert parse.__module__.startswith("bot.slack.")
    assert {"hippo.slack.save_note", "hippo.slack.help", "hippo.github.installation"} <= set(
        queued
    )  # the scan finds literals, constants and imported names
    registered = registered_tasks(make_celery(slack_runtime))
    missing = {name: where for name, where in queued.items() if name not in registered}
    assert missing == {}


def _matched(bolt: App, body: dict[str, Any]) -> bool:
    request = BoltRequest(body=body, mode="socket_mode")
    response = BoltResponse(status=200)
    return any(listener.matches(req=request, resp=response) for listener in bolt._listeners)


@pytest.fixture
def bolt(slack_runtime: Runtime) -> App:
    return make_slack_app(slack_runtime)


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "manifest.yml").read_text())
    return data


def test_every_manifest_entry_and_button_has_a_registered_listener(bolt: App) -> None:
    """Commands, shortcuts, events from manifest.yml and the action ids of hippo's buttons each
    match one of the Bolt app's registered listeners; an unknown one matches none."""
    m = manifest()
    bodies: dict[str, dict[str, Any]] = {}
    for c in m["features"]["slash_commands"]:
        bodies[c["command"]] = {"command": c["command"], "text": "", "team_id": "T1"}
    for s in m["features"]["shortcuts"]:
        kind = "message_action" if s["type"] == "message" else "shortcut"
        bodies[s["callback_id"]] = {"type": kind, "callback_id": s["callback_id"]}
    for name in m["settings"]["event_subscriptions"]["bot_events"]:
        event = {"type": name.partition(".")[0]}
        bodies[name] = {"type": "event_callback", "event": event, "team_id": "T1"}
    actions = action_ids()
    assert {"forget_pick_0", "forget_cancel", "agent_retry", "dream_revert"} <= actions
    for action in actions:
        bodies[action] = {"type": "block_actions", "actions": [{"action_id": action}]}
    unhandled = [what for what, body in bodies.items() if not _matched(bolt, body)]
    assert unhandled == []
    assert not _matched(bolt, {"type": "block_actions", "actions": [{"action_id": "nope"}]})
    assert not _matched(bolt, {"command": "/other", "text": ""})
