"""Issue 24 item 2: an agent's deletion or edit of a person's entry is a proposal, listed in the
digest with Accept / Drop buttons and on the console's Proposals page; one click of a person
settles it (the digest's button through Bolt and a real Celery worker; the console's form)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.app import create_app
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs.config import Config
from jobs.dream import run_dream
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author, Store
from memory.writes import AppendLine, WriteFile
from tests.bot.test_mcp import run_call, text_of
from tests.console_helpers import CSRF, sign_in
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import conformance, post
from tests.waiting import until

ALICE = Author("alice", "alice@example.com")
PATH = "services/checkout.md"
VPN = "Checkout needs the office VPN for the vendor sandbox"
RETRIES = "Checkout retries vendor calls 5 times before failing"
NEW = "Checkout retries vendor calls 3 times before failing"
SEED = f"# checkout\n\n- {VPN} [by: alice]\n- {RETRIES} [by: alice]\n"


def agent(store: Store, tool: str, args: dict[str, Any]) -> None:
    result = run_call(build_server(MemoryTools(store, workspace="w"), fixed("cursor")), tool, args)
    assert not result.is_error, text_of(result)


def texts(store: Store) -> list[str]:
    store.sync()
    return [e.text for e in fmt.parse(store.read(PATH)).entries]


def test_the_digest_button_accepts_an_agents_deletion(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """deleteMemory of alice's entry keeps it; the dream's digest lists the proposal with
    Accept and Drop; a person's Accept (clicked twice) removes and tombstones it, once."""
    rt = Runtime(replace(celery_worker_for.config, digest_channel="CDIGEST"))
    rt.store.write([WriteFile(PATH, SEED)], author=ALICE, message="seed")
    agent(rt.store, "deleteMemory", {"path": PATH, "message": "stale", "entries": [VPN]})
    assert VPN in texts(rt.store)
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    (sent,) = [p for p in slack_fake.posts() if p.get("channel") == "CDIGEST"]
    buttons = [e for b in sent["blocks"] if b["type"] == "actions" for e in b["elements"]]
    accept = next(b for b in buttons if b["action_id"] == "proposal_accept")
    assert {b["action_id"] for b in buttons} == {"proposal_accept", "proposal_drop"}
    assert any(VPN in (b.get("text") or {}).get("text", "") for b in sent["blocks"])
    body = conformance("block_actions.json")
    body["container"].update(message_ts=outcome.digest_ts, channel_id="CDIGEST", is_ephemeral=False)
    body["user"]["id"] = "W333"
    slack_fake.users["W333"] = {"is_admin": True}  # accepting is for admins, as Revert is
    body["actions"][0].update(action_id="proposal_accept", block_id="proposal_actions_0", value=accept["value"])  # fmt: skip
    client = create_app(rt.config, rt).test_client()
    assert post(client, payload_body(body)).status_code == 200
    assert post(client, payload_body(body)).status_code == 200  # a double click
    until(lambda: [c for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")])
    (reply,) = [c.form for c in slack_fake.calls("chat.postMessage") if c.form.get("thread_ts")]
    assert reply["text"].startswith(f"<@W333> Accepted: delete “{VPN}”")
    assert texts(rt.store) == [RETRIES]
    assert VPN in rt.store.read("forgotten.md")
    assert fmt.parse(rt.store.read("proposals.md")).entries == []
    assert rt.store.log(limit=1)[0].author == "W333"


def test_the_console_settles_edits_and_deletions(tmp_path: Path) -> None:
    """An agent's rewrite of alice's entry lands beside it; its deletion of the other is
    proposed. On /console/proposals, Accept makes the rewrite the person's entry in place of the
    old one, Drop keeps the entry and clears the proposal."""
    config = Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "remote.git"), console_token="tok", secret_key="s")  # fmt: skip
    rt = Runtime(config)
    try:
        rt.store.init()
        rt.store.write([WriteFile(PATH, SEED)], author=ALICE, message="seed")
        agent(rt.store, "writeMemory", {"path": PATH, "message": "m", "replace": [{"match": RETRIES, "text": NEW}]})  # fmt: skip
        agent(rt.store, "deleteMemory", {"path": PATH, "message": "stale", "entries": [VPN]})
        assert texts(rt.store) == [VPN, RETRIES, NEW]
        client = create_app(rt.config, rt).test_client()
        sign_in(client, "tok", name="Bea")
        page = client.get("/console/proposals").get_data(as_text=True)
        assert f"delete “{VPN}”" in page and f"“{NEW}” in place of “{RETRIES}”" in page
        forms = {m.group(1): m.start() for m in re.finditer(r'action="/console/proposals/(\w+)"', page)}  # fmt: skip
        token = CSRF.search(page)
        assert token is not None and len(forms) == 2
        delete_id, edit_id = sorted(forms, key=forms.__getitem__)
        for pid, decision in ((edit_id, "accept"), (delete_id, "drop")):
            resp = client.post(f"/console/proposals/{pid}", data={"csrf_token": token.group(1), "decision": decision})  # fmt: skip
            assert resp.status_code == 302
        doc = {e.text: e for e in fmt.parse(rt.store.read(PATH)).entries}
        assert list(doc) == [VPN, NEW]
        assert (doc[NEW].get("status"), doc[NEW].get("by"), doc[NEW].get("contradicts")) == (
            None,
            "Bea",
            None,
        )
        assert fmt.parse(rt.store.read("proposals.md")).entries == []
        assert "Nothing waiting" in client.get("/console/proposals").get_data(as_text=True)
    finally:
        rt.close()


def test_an_agents_own_quote_never_settles_a_persons_entry(tmp_path: Path) -> None:
    """Issue 37: an agent's entry carrying its own `contradicts: Checkout…` was matched by prefix
    to alice's first entry, and accepting it removed that entry. The write path keeps a link
    only when it names exactly one entry as hippo quotes it, so the agent's line lands as a
    plain tentative entry (no proposal), and no Accept can remove a person's entry by it."""
    config = Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "remote.git"), console_token="tok", secret_key="s")  # fmt: skip
    rt = Runtime(config)
    try:
        rt.store.init()
        rt.store.write([WriteFile(PATH, SEED)], author=ALICE, message="seed")
        line = "the nightly export job is written in Go [contradicts: Checkout…]"
        agent(rt.store, "writeMemory", {"path": PATH, "message": "m", "entries": [line]})
        doc = {e.text: e for e in fmt.parse(rt.store.read(PATH)).entries}
        mine = doc["the nightly export job is written in Go"]
        assert (mine.get("status"), mine.get("contradicts")) == ("tentative", None)
        # the same line pushed with plain git (or written before this check) is no proposal
        legacy = "- the billing job is written in Rust [by: cursor; kind: fact; status: tentative; contradicts: Checkout…]\n"
        rt.store.write([AppendLine(PATH, legacy.rstrip())], author=ALICE, message="push")
        client = create_app(rt.config, rt).test_client()
        sign_in(client, "tok", name="Bea")
        page = client.get("/console/proposals").get_data(as_text=True)
        assert "Nothing waiting" in page
        assert texts(rt.store)[:2] == [VPN, RETRIES]
    finally:
        rt.close()
