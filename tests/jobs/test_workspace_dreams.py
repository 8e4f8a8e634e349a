"""Many workspaces dream apart: each its own memory, dream lock, digest channel and token."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.runtime import Runtime
from jobs.task_messages import DreamAll, send
from memory import notes
from memory.git import Author
from tests.fakes.slack import SlackFake
from tests.waiting import until
from tests.workspaces_helpers import installed, many_config


@pytest.fixture
def rt(tmp_path: Path, slack_fake: SlackFake, embedded_redis_url: str) -> Iterator[Runtime]:
    runtime = Runtime(many_config(tmp_path, slack_fake.url, embedded_redis_url))
    runtime.redis.flushall()
    yield runtime
    runtime.redis.close()


def git(remote: Path, *args: str) -> str:
    cmd = ["git", "--git-dir", str(remote), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def test_beat_dreams_every_installed_workspace_with_its_own_digest(
    rt: Runtime, slack_fake: SlackFake, tmp_path: Path
) -> None:
    """The nightly fan-out queues one dream per installed workspace; each dreams its own
    repository and posts its digest to its own channel with its own token; an uninstalled
    workspace is not dreamed."""
    app = make_celery(rt)
    assert "hippo-dream-workspaces" in app.conf.beat_schedule
    for team, token in (("TAAA", "xoxb-aaa"), ("TBBB", "xoxb-bbb"), ("TCCC", "xoxb-ccc")):
        installed(rt, team, token)
        rt.workspaces.installs.configure(team, digest_channel=f"D{team}")
        note = f"{team} releases on Tuesdays at noon"
        who = Author("W1", "w1@users.slack.invalid")
        notes.save_note(rt.for_team(team).store, note, today="2026-11-29", author=who, key=team)
    rt.workspaces.installs.installations.delete_all(enterprise_id=None, team_id="TCCC")

    with worker_thread(app):
        send(rt, DreamAll(now_iso="2026-11-30T03:00"))
        until(lambda: len(slack_fake.calls("chat.postMessage")) >= 2, timeout=60)

    digests = {c.form["channel"]: c.token for c in slack_fake.calls("chat.postMessage")}
    assert digests == {"DTAAA": "xoxb-aaa", "DTBBB": "xoxb-bbb"}
    for call in slack_fake.calls("chat.postMessage"):  # Revert buttons name their workspace
        team = call.form["channel"][1:]
        values = [b["accessory"]["value"] for b in call.form["blocks"] if "accessory" in b]
        assert values and all(v.startswith(f"{team}|") for v in values)
    remotes = tmp_path / "remotes"
    for team in ("TAAA", "TBBB"):
        log = git(remotes / f"memory-{team}.git", "log", "--format=%s", "main")
        assert "dream(state)" in log
        assert f"{team} releases" in git(remotes / f"memory-{team}.git", "show", "main:inbox.md")
        assert rt.redis.exists(f"hippo:dream:digest:{team}:2026-11-29")
    tccc = git(remotes / "memory-TCCC.git", "log", "--format=%s", "main")
    assert "dream(" not in tccc  # uninstalled: not dreamed, its memory kept as it was
    assert not (tmp_path / "own.git").exists()


def test_each_workspaces_people_have_their_own_memories_dreamt_with_its_token(
    rt: Runtime, slack_fake: SlackFake, tmp_path: Path
) -> None:
    """Many workspaces: a person seen in workspace TAAA has their memory (the template's
    `{team}` and `{user}`) dreamt in it, and their digest comes by DM with TAAA's token; a
    person of TBBB is dreamt in TBBB; no one is dreamt in a workspace they were not seen in."""
    from dataclasses import replace

    from jobs import memories, people
    from jobs.task_messages import DreamMemories

    template = str(tmp_path / "people" / "memory-{team}-{user}.git")
    rt = Runtime(replace(rt.config, personal_remote_template=template))
    for team, token, person in (("TAAA", "xoxb-aaa", "WANN"), ("TBBB", "xoxb-bbb", "WBOB")):
        installed(rt, team, token)
        rt.redis.ping()  # the doors hold a Redis connection: one records who acted
        people.seen(rt, person, team=team)
        own = memories.runtime_for(rt.for_team(team), "me", person)
        who = Author(person, f"{person}@users.slack.invalid")
        notes.save_note(own.store, "I review on Mondays", today="2026-11-29", author=who, key=team)

    with worker_thread(make_celery(rt)):
        send(rt, DreamMemories(now_iso="2026-11-30T03:00"))
        until(lambda: len(slack_fake.calls("chat.postMessage")) >= 2, timeout=90)

    sent = {c.form["channel"]: c.token for c in slack_fake.calls("chat.postMessage")}
    assert sent == {"WANN": "xoxb-aaa", "WBOB": "xoxb-bbb"}  # DMs, each with its workspace's
    people = tmp_path / "people"
    assert "dream(state)" in git(people / "memory-TAAA-WANN.git", "log", "--format=%s", "main")
    assert "dream(state)" in git(people / "memory-TBBB-WBOB.git", "log", "--format=%s", "main")
    assert not (people / "memory-TAAA-WBOB.git").exists()
    assert not (people / "memory-TBBB-WANN.git").exists()
    rt.close()
