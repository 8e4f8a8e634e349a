"""Permissions end to end: the digest's Revert and Forget buttons and `/hippo dream` are for
workspace admins and owners and for HIPPO_ADMINS (user groups or users), asked of the loopback
Slack (users.info, usergroups.users.list) by a real Celery worker; a refusal is told only to the
presser (chat.postEphemeral) and does not block an admin's press after it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from bot.app import create_app
from demo.worker import worker_thread
from jobs.config import Config, ConfigError
from jobs.dream import run_dream
from jobs.runtime import Runtime
from jobs.slack.permissions import is_admin
from tests.fakes.slack import SlackFake, payload_body
from tests.jobs.test_dream_tasks import seeded
from tests.slack_helpers import command, conformance, post
from tests.waiting import until

pytestmark = pytest.mark.integration


def revert_press(digest_ts: str, commit: str, user: str, trigger: str) -> str:
    body = conformance("block_actions.json")
    body["container"].update(message_ts=digest_ts, channel_id="CDIGEST", is_ephemeral=False)
    body["user"]["id"] = user
    body["trigger_id"] = trigger
    body["actions"][0].update(action_id="dream_revert", block_id="dream_step_tidy",
                              value=f"default|{commit}")  # fmt: skip
    return payload_body(body)


def threaded(fake: SlackFake) -> list[dict[str, Any]]:
    return [c.form for c in fake.calls("chat.postMessage") if c.form.get("thread_ts")]


def test_revert_by_a_member_is_refused_then_an_admin_reverts(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """A plain member's Revert is refused (ephemeral, no commit); an admin's press on the same
    step afterwards reverts it."""
    rt = seeded(celery_worker_for)
    slack_fake.users.update(W333={"is_admin": False}, W444={"is_admin": True})
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.report is not None
    tidy = outcome.report.commits["tidy"]
    client = create_app(celery_worker_for.config, celery_worker_for).test_client()
    head = rt.store.head()
    assert post(client, revert_press(outcome.digest_ts, tidy, "W333", "t.1")).status_code == 200
    [refusal] = [c.form for c in slack_fake.wait_for("chat.postEphemeral")]
    assert (refusal["channel"], refusal["user"]) == ("CDIGEST", "W333")
    assert refusal["text"].startswith("Only workspace admins and owners can revert a dream step")
    rt.store.sync()
    assert rt.store.head() == head and threaded(slack_fake) == []
    assert post(client, revert_press(outcome.digest_ts, tidy, "W444", "t.2")).status_code == 200
    until(lambda: threaded(slack_fake))
    assert threaded(slack_fake)[0]["text"].startswith("<@W444> reverted “dream(tidy): ")
    rt.store.sync()
    assert rt.store.log(limit=1)[0].author == "W444"


@pytest.fixture
def admins_worker(slack_runtime: Runtime) -> Iterator[Runtime]:
    """A real Celery worker on a Runtime whose HIPPO_ADMINS names the group S0ADMINS."""
    from jobs.celery_app import make_celery

    rt = Runtime(replace(slack_runtime.config, slack_admins=("S0ADMINS",)))
    with worker_thread(make_celery(rt)):
        yield rt


def test_hippo_admins_group_members_may_revert(
    admins_worker: Runtime, slack_fake: SlackFake
) -> None:
    """A member of a HIPPO_ADMINS user group (not a workspace admin) may revert."""
    worker_rt, config = admins_worker, admins_worker.config
    slack_fake.usergroups["S0ADMINS"] = ["W555"]
    rt = seeded(worker_rt)
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.report is not None
    client = create_app(config, worker_rt).test_client()
    press = revert_press(outcome.digest_ts, outcome.report.commits["tidy"], "W555", "t.3")
    assert post(client, press).status_code == 200
    until(lambda: threaded(slack_fake))
    assert threaded(slack_fake)[0]["text"].startswith("<@W555> reverted")
    assert slack_fake.calls("usergroups.users.list")[0].form["usergroup"] == "S0ADMINS"
    assert slack_fake.calls("chat.postEphemeral") == []


def test_refusal_names_the_group_and_dream_from_a_member_is_refused(
    admins_worker: Runtime, slack_fake: SlackFake
) -> None:
    """`/hippo dream` by a member outside the group is refused, naming the group, only to them."""
    slack_fake.usergroups["S0ADMINS"] = ["W555"]
    client = create_app(admins_worker.config, admins_worker).test_client()
    hook = slack_fake.url + "hooks/commands/T111/1/dream"
    assert post(client, command("dream", trigger="d.1", response_url=hook)).status_code == 200
    until(lambda: slack_fake.hooks())
    said = slack_fake.hooks()[0].form
    assert said["response_type"] == "ephemeral"
    assert said["text"].startswith("Only workspace admins and owners and members of <!subteam^S0")
    admins_worker.store.sync()
    assert not [c for c in admins_worker.store.log() if c.summary.startswith("dream(")]


def test_is_admin_asks_slack_and_says_no_on_errors(
    slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """Owners and listed users are admins; a users.info error or an unknown group means no."""
    rt = Runtime(replace(slack_runtime.config, slack_admins=("W777", "S0GONE")))
    slack_fake.users["W1"] = {"is_owner": True}
    assert is_admin(rt, "W1") and is_admin(rt, "W777")
    assert not is_admin(rt, "W2")  # a member; S0GONE answers no_such_subteam
    slack_fake.script("users.info", (200, {"ok": False, "error": "user_not_found"}, {}))
    assert not is_admin(rt, "W1")
    offline = Runtime(replace(slack_runtime.config, slack_bot_token=""))
    assert is_admin(offline, "anyone")  # no Slack to ask: one person's laptop
    # Many workspaces: a workspace without a token has uninstalled hippo; a press queued before
    # is refused, not allowed as on a laptop.
    apps = replace(offline.config, slack_client_id="111.222", slack_client_secret="s3cret")
    assert apps.slack_oauth and not is_admin(Runtime(apps), "anyone")


def test_hippo_admins_setting_is_checked() -> None:
    """HIPPO_ADMINS takes group and user ids; anything else names the variable."""
    assert Config.from_env({"HIPPO_ADMINS": "S0ADMINS, W123"}).slack_admins == ("S0ADMINS", "W123")
    with pytest.raises(ConfigError, match="HIPPO_ADMINS item '@oncall'"):
        Config.from_env({"HIPPO_ADMINS": "@oncall"})
