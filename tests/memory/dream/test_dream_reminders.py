"""The dream's reminder check (issue 29 item 3): an expiry that has passed and a pull request
trigger GitHub says happened are closed, each its own commit with the reason; due dates and
plain triggers wait for a person; the digest lists what is due that day. GitHub is the real
verifier against the loopback fake."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from integrations import github_client as gh
from integrations.live_verifiers import GitHubVerifier
from memory import format as fmt
from memory.dream import digest
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.reminders import model
from memory.writes import WriteFile
from tests.fakes.github import FakeGitHub, pull_body, repo_body

ANN = Author("ann", "ann@example.com")
NIGHT = datetime(2026, 12, 16, 3, 0)  # the morning of 16 December
REMINDERS = (
    "# Reminders\n\n"
    "- say the deploy freeze is on [until: 2026-12-15; added: 2026-12-01]\n\n"
    "- remove the feature flag [due: 2026-12-16; added: 2026-12-01]\n\n"
    "- rotate the keys [due: 2026-12-10; added: 2026-12-01]\n\n"
    "- drop the shim [when: once acme/api#12 is merged; added: 2026-12-01]\n\n"
    "- drop the other shim [when: once acme/api#14 is merged; added: 2026-12-01]\n\n"
    "- re-check the rate limit [when: after the migration; added: 2026-12-01]\n\n"
    "- say the holiday rota is out [until: 2026-12-31; added: 2026-12-01]\n"
)


@pytest.fixture
def github() -> Iterator[GitHubVerifier]:
    with FakeGitHub() as fake:
        api = repo_body("acme/api") | {"default_branch": "main", "archived": False}
        fake.route("GET", "/repos/acme/api", api)
        fake.route("GET", "/repos/acme/api/pulls/12", pull_body("acme/api", 12, merged=True))
        fake.route("GET", "/repos/acme/api/pulls/14", pull_body("acme/api", 14, merged=False))
        settings = gh.GitHubSettings(api_url=fake.url, token="t", retry=False, throttle=False)
        yield GitHubVerifier(lambda _owner: gh.client(settings))


def test_the_dream_closes_expired_and_merged_each_in_its_own_commit(
    store: Store, github: GitHubVerifier
) -> None:
    store.write([WriteFile(model.PATH, REMINDERS)], author=ANN, message="seed")
    report = dream(store, now=NIGHT, verifiers=Verifiers([github]))
    closes = [s for s in report.steps if s.step.startswith("reminders:") and s.commit]
    texts = {e.text: e for e in fmt.parse(store.read(model.PATH)).entries}
    assert sorted(e.text for e in texts.values() if e.get("done")) == [
        "drop the shim",
        "say the deploy freeze is on",
    ]
    assert len(closes) == 2 and all(len(s.files) == 1 for s in closes)
    shim = texts["drop the shim"]
    assert shim.get("done") == "2026-12-16" and "acme/api#12 is merged" in (
        shim.get("reason") or ""
    )
    assert "until 2026-12-15 passed" in (texts["say the deploy freeze is on"].get("reason") or "")
    by_key = {c.trailers.get("Hippo-Key"): c for c in store.log(limit=20)}
    rid = model.reminder_id("drop the shim")
    commit = by_key[f"dream:2026-12-15:reminders:{rid}"]
    assert commit.author == "hippo dreaming" and "acme/api#12 is merged" in commit.message
    found = report.extra["reminders"]
    assert [r["text"] for r in found["due"]] == ["remove the feature flag"]
    assert [r["text"] for r in found["overdue"]] == ["rotate the keys"]
    text = str(digest.blocks(report, console_url="http://c"))
    assert "Reminders due today" in text and "remove the feature flag" in text
    assert "Reminders closed by the dream" in text and "Reminders overdue" in text
    (buttons,) = [
        b
        for b in digest.blocks(report, console_url="")
        if b["type"] == "actions" and b["elements"][0]["action_id"].startswith("reminder_done_")
    ]
    assert [b["value"] for b in buttons["elements"]] == [
        model.reminder_id("remove the feature flag"),
        model.reminder_id("rotate the keys"),
    ]
    before = store.read(model.PATH)
    again = dream(store, now=NIGHT, verifiers=Verifiers([github]))  # the night is done
    assert again.skipped and store.read(model.PATH) == before


def test_without_github_only_the_expiry_closes_and_nothing_else_is_touched(
    store: Store,
) -> None:
    """Without GitHub the trigger is not checkable: it stays open, as due dates do; entries of
    reminders.md are never corrected, merged, filed or expired as facts."""
    store.write([WriteFile(model.PATH, REMINDERS)], author=ANN, message="seed")
    dream(store, now=NIGHT, verifiers=Verifiers())
    after = {e.text: e for e in fmt.parse(store.read(model.PATH)).entries}
    assert [t for t, e in after.items() if e.get("done")] == ["say the deploy freeze is on"]
    assert len(after) == 7 and "reminders.md" not in store.read("MEMORY.md")


def test_a_reverted_close_stays_open(store: Store) -> None:
    """The digest's Revert (store.revert) of the dream's close reopens the reminder, and the
    next nights leave it open (the state's `apart`); a person may still close it."""
    store.write([WriteFile(model.PATH, REMINDERS)], author=ANN, message="seed")
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    rid = model.reminder_id("say the deploy freeze is on")
    sha = next(s.commit for s in report.steps if s.step == f"reminders:{rid}")
    assert sha is not None
    store.revert(sha, ANN)
    for night in (1, 2):
        later = dream(store, now=NIGHT + timedelta(days=night), verifiers=Verifiers())
        assert not [s for s in later.steps if s.step.startswith("reminders:") and s.commit]
    assert model.find(model.parse(store.read(model.PATH)), rid).done is None  # type: ignore[union-attr]
    assert f"reminder:{rid}" in store.read(".dream/state.json")
