"""Issue 39, items 1, 2 and 11 through their doors: `hippo dream` proposes lessons, titles and
layout changes; the digest shows each as one card with Accept and Drop (Bolt and a real Celery
worker behind the button); the console's Proposals page accepts them; each accept is one commit
by the person, revertable from the console's history; nothing moves without a person."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from bot.app import create_app
from bot.cli.main import main
from jobs.config import Config
from jobs.dream import run_dream
from jobs.runtime import Runtime
from memory import format as fmt
from tests.console_helpers import CSRF, sign_in
from tests.fakes.slack import SlackFake, payload_body
from tests.memory.dream.test_dream_layout import seed as seed_layout
from tests.memory.dream.test_dream_lessons import seed_month
from tests.slack_helpers import conformance, post
from tests.waiting import until


def test_the_digest_accepts_a_lesson_no_one_wrote_down(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """The night's digest carries the error's lesson as a card with Accept and Drop; an admin's
    Accept writes it into the inbox as their entry, citing every episode; the next night does
    not propose it again."""
    rt = Runtime(replace(celery_worker_for.config, digest_channel="CDIGEST"))
    seed_month(rt.store)
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    (sent,) = [p for p in slack_fake.posts() if p.get("channel") == "CDIGEST"]
    cards = [b for b in sent["blocks"] if "a lesson for" in str(b.get("text"))]
    assert len(cards) == 2 and "a lesson for inbox.md: “`pytest` fails" in cards[0]["text"]["text"]
    at = sent["blocks"].index(cards[0])
    actions = sent["blocks"][at + 1]
    accept = next(e for e in actions["elements"] if e["action_id"] == "proposal_accept")
    body = conformance("block_actions.json")
    body["container"].update(message_ts=outcome.digest_ts, channel_id="CDIGEST", is_ephemeral=False)
    body["user"]["id"] = "W333"
    slack_fake.users["W333"] = {"is_admin": True}
    body["actions"][0].update(action_id="proposal_accept", block_id=actions["block_id"], value=accept["value"])  # fmt: skip
    client = create_app(rt.config, rt).test_client()
    assert post(client, payload_body(body)).status_code == 200
    until(lambda: [c for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")])
    rt.store.sync()
    (lesson,) = [e for e in fmt.parse(rt.store.read("inbox.md")).entries if "psycopg2" in e.text]
    assert (lesson.get("by"), lesson.get("status"), lesson.get("kind")) == ("W333", None, "pitfall")
    assert lesson.get("episodes") == "2026-11-03#L1, 2026-11-12#L1, 2026-11-20#L1"
    run_dream(rt, now_iso="2026-12-01T03:00")
    assert "psycopg2" not in (rt.store.read_or_none("proposals.md") or "")


def test_the_console_accepts_a_merge_and_a_title_and_reverts_one(
    tmp_path: Path, capsys: object
) -> None:
    """`hippo dream` proposes; on /console/proposals Accept merges runbooks/deploys.md into
    runbooks/deploy.md (the link to it rewritten) as one commit by the signed-in person, and
    retitles notes.md; the console's revert of the merge brings the file and the link back."""
    config = Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "remote.git"), console_token="tok", secret_key="s")  # fmt: skip
    rt = Runtime(config)
    try:
        rt.store.init()
        seed_layout(rt.store)
        assert main(["dream", "--now", "2026-11-30T03:00"], config) == 0
        client = create_app(rt.config, rt).test_client()
        sign_in(client, "tok", name="Bea")
        page = client.get("/console/proposals").get_data(as_text=True)
        assert "merge runbooks/deploys.md into runbooks/deploy.md" in page
        assert "title notes.md “Checkout, sandbox, vendor”" in page
        ids = re.findall(r'action="/console/proposals/(\w+)"', page)
        token = CSRF.search(page)
        assert token is not None and len(ids) == 4
        merge_id = next(i for i in ids if page.index(i) > page.index("merge runbooks/deploys.md"))
        title_id = next(i for i in ids if page.index(i) > page.index("title notes.md"))
        for pid in (merge_id, title_id):
            form = {"csrf_token": token.group(1), "decision": "accept"}
            assert client.post(f"/console/proposals/{pid}", data=form).status_code == 302
        rt.store.sync()
        assert rt.store.read_or_none("runbooks/deploys.md") is None
        assert "[[runbooks/deploy]]" in rt.store.read("services/checkout.md")
        assert rt.store.read("notes.md").startswith("# Checkout, sandbox, vendor\n")
        merged = next(c for c in rt.store.log(limit=5) if "merge runbooks/deploys.md" in c.summary)
        assert merged.author == "Bea"
        form = {"csrf_token": token.group(1)}
        assert client.post(f"/console/revert/{merged.sha}", data=form).status_code == 302
        rt.store.sync()
        assert rt.store.read("runbooks/deploys.md").startswith("# Deploys")
        assert "[[runbooks/deploys]]" in rt.store.read("services/checkout.md")
    finally:
        rt.close()
