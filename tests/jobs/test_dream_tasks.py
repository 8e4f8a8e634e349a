"""Dreaming end to end: the lock, the snapshot, the digest's blocks as sent to the Slack fake,
the Revert button through Bolt and a real Celery worker, `/hippo dream`, `hippo dream`, beat."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from bot.app import create_app
from bot.cli.main import main
from integrations.slack_post import Outbox
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.dream import make_verifiers, parse_now, run_dream
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author
from memory.search.fts import FtsIndex
from memory.writes import WriteFile
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import command, conformance, post
from tests.waiting import until

SEED = {
    "archive/2026-11-29.jsonl": json.dumps(
        {"type": "thread_summary", "at": "2026-11-29T10:00:00+00:00",
         "summary": "The release train now leaves on Tuesdays at noon",
         "source": "https://acme.slack.com/archives/C1/p1700000000000100"}
    ) + "\n",
    "inbox.md": "# Inbox\n\n- the release train needs a captain\n",
    "teams/release.md": "# Release\n\n- trains leave from the main branch\n",
}  # fmt: skip


def seeded(rt: Runtime, channel: str = "CDIGEST") -> Runtime:
    rt.store.write(
        [WriteFile(p, t) for p, t in SEED.items()], author=Author("a", "a@x"), message="seed"
    )
    return Runtime(replace(rt.config, digest_channel=channel))


def digest_post(fake: SlackFake) -> dict[str, Any]:
    (found,) = [p for p in fake.posts() if p.get("channel") == "CDIGEST"]
    return found


def test_dream_publishes_a_snapshot_and_posts_the_digest(
    slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """A dream commits its steps, publishes snapshot 1 at its last commit, and posts the digest
    with the daily note, one section per step (a Revert button on each a person may undo),
    deletions and usage."""
    rt = seeded(slack_runtime)
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.status == "done" and outcome.report is not None
    assert outcome.snapshot == 1
    assert rt.store.refs("snapshots/") == {"snapshots/1": outcome.report.head}
    sent = digest_post(slack_fake)
    blocks = sent["blocks"]
    assert sent["text"] == "Dream of the night of 2026-11-29: daily, tidy, index, state"
    assert blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "Dream of the night of 2026-11-29"},
    }
    assert "The release train now leaves on Tuesdays at noon" in blocks[1]["text"]["text"]
    buttons = [b for b in blocks if "accessory" in b]
    assert [b["block_id"] for b in buttons] == [
        "dream_step_daily",
        "dream_step_tidy",
        "dream_step_index",
    ]  # the state step touches only .dream/, which no person may write: no Revert there
    (state,) = [b for b in blocks if b.get("block_id") == "dream_step_state"]
    assert "`.dream/state.json`" in state["text"]["text"]
    tidy = buttons[1]
    commit = outcome.report.commits["tidy"]
    assert tidy["accessory"]["action_id"] == "dream_revert"
    assert tidy["accessory"]["value"] == f"default|{commit}"
    assert f"<http://hippo.test/console/commit/{commit}|diff {commit[:8]}>" in tidy["text"]["text"]
    assert "`inbox.md`, `teams/release.md` (+1 −1)" in tidy["text"]["text"]
    texts = [b.get("text", {}).get("text", "") for b in blocks]
    assert "*Deletions*: 0 of at most 3 tonight" in texts
    assert any(t.startswith("*Unverified files*\n• teams/release.md") for t in texts)
    assert blocks[-1]["elements"][0]["text"] == "0 claims sent to verifiers · Claude: not used"


def test_one_dream_per_workspace_at_a_time(slack_runtime: Runtime) -> None:
    """While the workspace's dream lock is held, another dream does nothing and says busy."""
    lock = slack_runtime.redis.lock("hippo:dream:default", timeout=60)
    assert lock.acquire(blocking=False)
    try:
        assert run_dream(slack_runtime, now_iso="2026-11-30T03:00").status == "busy"
    finally:
        lock.release()
    assert run_dream(slack_runtime, now_iso="2026-11-30T03:00").status == "done"
    assert run_dream(slack_runtime, now_iso="2026-11-30T04:00").status == "skipped"


def test_without_slack_the_digest_goes_to_the_outbox(
    tmp_path: Any, embedded_redis_url: str
) -> None:
    """Offline, the digest is kept in the console outbox under the channel 'digest'."""
    rt = Runtime(Config(redis_url=embedded_redis_url, data_dir=tmp_path / "d",
                        memory_remote=str(tmp_path / "r.git")))  # fmt: skip
    rt.redis.flushall()
    rt.store.init()
    run_dream(seeded(rt, channel=""), now_iso="2026-11-30T03:00")
    assert isinstance(rt.poster, Outbox)
    (item,) = [json.loads(x) for x in rt.redis.lrange("hippo:outbox", 0, -1)]
    assert (item["channel"], item["blocks"][0]["type"]) == ("digest", "header")


def test_revert_button_reverts_one_step_and_confirms_in_thread(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """Pressing Revert on the tidy step reverts that commit as the presser, confirms in the
    digest's thread, and leaves the other steps alone; a second press changes nothing."""
    rt = seeded(celery_worker_for)
    slack_fake.users["W222"] = {"is_admin": True}  # Revert is for admins (test_slack_permissions)
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.report is not None
    tidy = outcome.report.commits["tidy"]
    body = conformance("block_actions.json")
    body["container"].update(message_ts=outcome.digest_ts, channel_id="CDIGEST", is_ephemeral=False)
    body["user"]["id"] = "W222"
    body["actions"][0].update(action_id="dream_revert", block_id="dream_step_tidy",
                              value=f"default|{tidy}")  # fmt: skip
    client = create_app(celery_worker_for.config, celery_worker_for).test_client()
    assert post(client, payload_body(body)).status_code == 200
    assert post(client, payload_body(body)).status_code == 200  # a double click
    until(lambda: [c for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")])
    replies = [c.form for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")]
    assert len(replies) == 1
    assert replies[0]["thread_ts"] == outcome.digest_ts
    assert replies[0]["text"].startswith("<@W222> reverted “dream(tidy): ")
    store = celery_worker_for.store
    store.sync()
    assert "needs a captain" in store.read("inbox.md")
    assert store.log(limit=1)[0].author == "W222"
    assert store.read_or_none("daily/2026-11-29.md") is not None


def test_merge_button_merges_a_possible_duplicate_as_the_presser(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """Two close wordings are not merged at night without an LLM: the digest lists them with a
    Merge button; an admin's press keeps one entry with both sources, as a commit by that
    person, confirmed in the digest's thread; a double click merges once."""
    rt = seeded(celery_worker_for)
    a, b = "staging is reset every Sunday night", "staging gets wiped each Sunday night"
    rt.store.write(
        [WriteFile("ops/staging.md", f"# Staging\n\n- {a} [source: https://a]\n"
                   f"- {b} [source: https://b]\n")],
        author=Author("a", "a@x"),
        message="two wordings",
    )  # fmt: skip
    slack_fake.users["W222"] = {"is_admin": True}
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.report is not None
    assert len(fmt.parse(rt.store.read("ops/staging.md")).entries) == 2
    (button,) = [
        blk["accessory"]
        for blk in digest_post(slack_fake)["blocks"]
        if blk.get("accessory", {}).get("action_id") == "dream_merge_pair"
    ]
    body = conformance("block_actions.json")
    body["container"].update(message_ts=outcome.digest_ts, channel_id="CDIGEST", is_ephemeral=False)
    body["user"]["id"] = "W222"
    body["actions"][0].update(action_id="dream_merge_pair", block_id="dream_possible_0",
                              value=button["value"])  # fmt: skip
    client = create_app(celery_worker_for.config, celery_worker_for).test_client()
    assert post(client, payload_body(body)).status_code == 200
    assert post(client, payload_body(body)).status_code == 200  # a double click
    until(lambda: [c for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")])
    replies = [c.form for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")]
    assert len(replies) == 1 and replies[0]["text"].startswith("<@W222> merged “")
    store = celery_worker_for.store
    store.sync()
    (kept,) = fmt.parse(store.read("ops/staging.md")).entries
    assert sorted(kept.get_all("source")) == ["https://a", "https://b"]
    assert "merged into ops/staging.md" in store.read("forgotten.md")
    assert store.log(limit=1)[0].author == "W222"


def test_slash_command_dream_is_for_admins(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """`/hippo dream` from a non-admin is refused; from an admin it runs and posts the digest."""
    client = create_app(celery_worker_for.config, celery_worker_for).test_client()
    slack_fake.script(
        "users.info", (200, {"ok": True, "user": {"id": "W1", "is_admin": False}}, {})
    )
    assert post(client, command("dream", trigger="1.1.a")).status_code == 200
    until(lambda: slack_fake.calls("chat.postMessage"))
    assert slack_fake.posts()[-1]["text"].startswith("Only workspace admins and owners can start")
    slack_fake.script("users.info", (200, {"ok": True, "user": {"id": "W1", "is_owner": True}}, {}))
    assert post(client, command("dream --now 2026-11-30T03:00", trigger="1.1.b")).status_code == 200
    until(lambda: celery_worker_for.store.sync() and celery_worker_for.store.ref("snapshots/1"))
    assert celery_worker_for.store.log(limit=1)[0].summary.startswith("dream(state)")


def test_cli_dream_prints_the_steps(
    slack_runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo dream --now …` runs the dream and prints one line per step; again: already ran."""
    seeded(slack_runtime)
    config = slack_runtime.config
    assert main(["dream", "--now", "2026-11-30T03:00"], config) == 0
    out = capsys.readouterr().out
    assert out.startswith("Dream of the night of 2026-11-29:\n")
    assert "dream(tidy): 0 duplicates merged, 1 inbox notes filed" in out
    assert main(["dream", "--now", "2026-11-30T05:00"], config) == 0
    assert "already ran" in capsys.readouterr().out


def test_beat_runs_the_dream_nightly_in_the_team_timezone(embedded_redis_url: str) -> None:
    """HIPPO_DREAM_AT and HIPPO_TIMEZONE become a crontab in the Celery app's timezone."""
    config = Config(redis_url=embedded_redis_url, dream_at="02:30", timezone="Europe/Berlin")
    app = make_celery(Runtime(config))
    entry = app.conf.beat_schedule["hippo-dream-nightly"]
    assert entry["task"] == "hippo.dream.run"
    assert (entry["schedule"].hour, entry["schedule"].minute) == ({2}, {30})
    assert entry["kwargs"] == {"workspace": "default"}
    assert str(app.timezone) == "Europe/Berlin"


def test_dream_settings_come_from_the_environment() -> None:
    """HIPPO_DREAM_AT, HIPPO_TIMEZONE, HIPPO_DIGEST_CHANNEL and HIPPO_VERIFY_HOSTS are read once,
    with defaults; the hosts and tokens decide which verifiers a dream gets (and what the
    declared checks of .hippo/checks.yml can reach)."""
    env = {"HIPPO_DREAM_AT": "04:15", "HIPPO_TIMEZONE": "America/New_York",
           "HIPPO_DIGEST_CHANNEL": "C0DIGEST", "HIPPO_VERIFY_HOSTS": "docs.acme.dev, status.io",
           "GITHUB_TOKEN": "t", "SLACK_BOT_TOKEN": "xoxb-x"}  # fmt: skip
    config = Config.from_env(env)
    assert (config.dream_at, config.timezone, config.digest_channel) == (
        "04:15",
        "America/New_York",
        "C0DIGEST",
    )
    assert config.verify_hosts == ("docs.acme.dev", "status.io")
    assert make_verifiers(Runtime(config)).names() == ["github", "slack", "http", "declared"]
    assert parse_now(config, "2026-11-30T03:00").utcoffset() == timedelta(hours=-5)
    default = Config.from_env({})
    assert (default.dream_at, default.timezone, default.digest_channel) == ("03:00", "UTC", "")
    # the team's declared checks always have a verifier: it says what is missing to run them
    assert default.verify_hosts == () and make_verifiers(Runtime(default)).names() == ["declared"]


def test_a_digest_lost_after_the_state_commit_is_posted_once(
    slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """If the worker died between the state commit and the digest, the retry posts the digest
    from history (every step, Revert buttons included); a later rerun posts nothing."""
    from datetime import datetime

    from memory.dream.run import dream

    rt = seeded(slack_runtime)
    dream(rt.store, now=datetime(2026, 11, 30, 3, 0))  # the steps ran; the digest never left
    outcome = run_dream(rt, now_iso="2026-11-30T06:00")
    assert outcome.status == "skipped" and outcome.digest_ts
    blocks = digest_post(slack_fake)["blocks"]
    assert [b["block_id"] for b in blocks if "accessory" in b] == [
        "dream_step_daily", "dream_step_tidy", "dream_step_index"
    ]  # fmt: skip
    assert "The release train now leaves on Tuesdays at noon" in blocks[1]["text"]["text"]
    assert run_dream(rt, now_iso="2026-11-30T07:00").digest_ts == ""
    assert len([p for p in slack_fake.posts() if p.get("channel") == "CDIGEST"]) == 1


def test_the_dream_counts_its_promotions_and_the_digest_shows_the_day_before(
    slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """Two tentative lessons of one edit merge and become active: the operational log counts one
    promotion (a skipped rerun counts nothing), and the digest shows the day before's counts."""
    from jobs import oplog

    sig = "edit tests/*.py +fixture -mock"
    lessons = "".join(
        f"- Observed: people use fixtures in tests/*.py (#{n}) [source: https://github.com/a/b/"
        f"pull/{n}; added: 2026-11-2{n}; status: tentative; signature: {sig}]\n"
        for n in (1, 2)
    )
    rt = seeded(slack_runtime)
    rt.store.write([WriteFile("conventions/a/b.md", "# Conventions: a/b\n\n" + lessons)],
                   author=Author("a", "a@x"), message="lessons")  # fmt: skip
    oplog.count_in(rt.redis, "default", oplog.BRIEFINGS, 4, day="2026-11-29")
    assert run_dream(rt, now_iso="2026-11-30T03:00").status == "done"
    assert "status: active" in rt.store.read("conventions/a/b.md")
    assert oplog.day(rt.redis, "default", oplog.today())["promotions"] == 1
    assert run_dream(rt, now_iso="2026-11-30T04:00").status == "skipped"
    assert oplog.day(rt.redis, "default", oplog.today())["promotions"] == 1
    texts = [b.get("text", {}).get("text", "") for b in digest_post(slack_fake)["blocks"]]
    assert any(t.startswith("*Activity on 2026-11-29*: 0 recalls · 4 briefings") for t in texts)


def test_the_digest_lists_contradictions_and_the_agents_entries_made_active(
    slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """The quality gate through the nightly door: an agent's entry seen in two threads becomes
    active (one promotion counted), a disputed one is listed for a person in the posted digest,
    with the day before's contradictions counted."""
    from jobs import oplog

    old = "the release train leaves at 12:00"
    agent = "kind: fact; status: tentative; by: hippo for U1"
    a, b = (f"https://acme.slack.com/archives/C{n}/p170000000000010{n}" for n in (1, 2))
    text = (
        f"# Release\n\n- {old} [by: alice]\n"
        f"- the release train leaves at 13:00 [source: {a}; {agent}; contradicts: {old}]\n"
        f"- release trains skip bank holidays [source: {a}; evidence: {b}; {agent}]\n"
    )
    rt = seeded(slack_runtime)
    rt.store.write([WriteFile("teams/train.md", text)], author=Author("a", "a@x"), message="m")
    oplog.count_in(rt.redis, "default", oplog.CONTRADICTIONS, 2, day="2026-11-29")
    assert run_dream(rt, now_iso="2026-11-30T03:00").status == "done"
    assert oplog.day(rt.redis, "default", oplog.today())["promotions"] == 1
    texts = [x.get("text", {}).get("text", "") for x in digest_post(slack_fake)["blocks"]]
    settle = next(t for t in texts if t.startswith("*Contradictions to settle*"))
    assert (
        "/console/file/teams/train.md|teams/train.md>: “the release train leaves at 13:00” "
        in settle
    )
    assert "*Lessons now active*\n• release trains skip bank holidays" in texts
    assert any(t.startswith("*Activity on 2026-11-29*:") and "2 contradictions" in t for t in texts)


def test_after_a_dream_the_search_index_is_at_the_tip(slack_runtime: Runtime) -> None:
    """The worker that dreamt brings the search index on disk to the night's last commit, so
    the morning's first search (any process on this data dir) applies nothing: a dream that
    changed over an eighth of the files would have made it rebuild the whole index."""
    rt = seeded(slack_runtime)
    rt.store.search("release train")  # the index at the seed, as a day of searches leaves it
    index = FtsIndex(rt.store.cache.with_suffix(".search.sqlite"))
    try:
        seed = index.commit
        assert run_dream(rt, now_iso="2026-11-30T03:00").status == "done"
        assert index.commit == rt.store.head() != seed
    finally:
        index.close()
