"""The digest's blocks for a night that hit the deletion cap, made a lesson active and used Claude
(the blocks as Slack receives them are in test_dream_tasks)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memory.dream import digest
from memory.dream.run import dream
from memory.dream.verifiers import Verdict, Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.verifiers import TableVerifier

LESSON = "Observed: people add `timeout`"


def test_digest_says_the_cap_was_hit_names_active_lessons_and_claude_usage(
    tmp_path: Path,
) -> None:
    """Five wrong entries, cap 3: the digest gives the evidence, says the cap was reached and
    which files wait; it lists the lesson that became active and Claude's tokens and cache reads."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    files = {f"t/f{i}.md": f"# F{i}\n\n- runs from acme/api:gone{i}.py\n" for i in range(5)}
    files["conventions/acme/api.md"] = (
        "# Conventions: acme/api\n\n"
        f"- {LESSON} [source: https://g/pr/1; added: 2026-11-01; status: tentative; "
        "signature: edit py +timeout]\n"
        f"- {LESSON} [source: https://g/pr/2; added: 2026-11-05; status: tentative; "
        "signature: edit py +timeout]\n"
    )
    store.write([WriteFile(p, t) for p, t in files.items()], author=Author("a", "a@x"), message="s")
    table = {f"acme/api:gone{i}.py": Verdict.unfixable(f"gone{i}.py was deleted") for i in range(5)}
    verifiers = Verifiers([TableVerifier("github", ["path"], table)])
    report = dream(store, now=datetime(2026, 11, 30, 3), verifiers=verifiers)
    report.extra["usage"] = {
        "input_tokens": 1200,
        "output_tokens": 300,
        "cache_read_input_tokens": 900,
    }
    blocks = digest.blocks(report, console_url="http://hippo.test")
    texts = [b.get("text", {}).get("text", "") for b in blocks]
    corrections = next(t for t in texts if t.startswith("*Corrections*"))
    assert "• deleted t/f0.md: 'runs from acme/api:gone0.py'" in corrections
    assert "• evidence: github: gone0.py was deleted" in corrections
    assert "• deferred t/f3.md" in corrections
    deletions = "*Deletions*: 3 of at most 3 tonight — *cap reached*; waiting for the next night: "
    assert deletions + "t/f3.md, t/f4.md" in texts
    assert f"*Lessons now active*\n• {LESSON}" in texts
    usage = blocks[-1]["elements"][0]["text"]
    assert usage == "5 claims sent to verifiers · Claude: 1,500 tokens, 900 read from cache"
    report.extra["usage"]["skipped"] = 1204  # a night that stopped asking an unavailable Claude
    usage = digest.blocks(report, console_url="http://hippo.test")[-1]["elements"][0]["text"]
    assert usage.endswith("900 read from cache (unavailable: 1,204 checks done without it)")


def test_digest_shows_the_days_activity_and_the_lessons_briefed_most() -> None:
    """The operational log of the day before: each count, then the lessons briefings used."""
    day = {"day": "2026-11-30", "recalls": 12, "briefings": 3, "promotions": 1}
    used = [("conventions/acme/shop.md", "use fixtures, not mock.patch", 3)]
    [block] = digest.oplog_blocks(day, used)
    text = block["text"]["text"]
    assert text.startswith(
        "*Activity on 2026-11-30*: 12 recalls · 3 briefings · 1 promotions · 0 revocations · "
        "0 contradictions"
    )
    assert "• use fixtures, not mock.patch (3×, `conventions/acme/shop.md`)" in text
    assert digest.oplog_blocks({}, None) == []
