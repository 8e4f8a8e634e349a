"""The dream rolls the archive's old months into the cold ref after its steps; `hippo archive`
does it by hand and counts."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main
from jobs.dream import run_dream
from jobs.runtime import Runtime
from memory.git import Author
from memory.git.cold import COLD_REF
from memory.writes import WriteFile

EPISODES = {
    f"archive/{day}.jsonl": json.dumps({"type": "thread_summary", "at": f"{day}T10:00:00+00:00",
                                        "summary": f"the release train left late on {day}"}) + "\n"
    for day in ("2026-08-04", "2026-09-14", "2026-11-29")
}  # fmt: skip


def test_the_dream_rolls_old_months_into_the_cold_ref(slack_runtime: Runtime) -> None:
    rt = slack_runtime
    rt.store.write(
        [WriteFile(p, t) for p, t in EPISODES.items()], author=Author("a", "a@x"), message="seed"
    )
    outcome = run_dream(rt, now_iso="2026-11-30T03:00")
    assert outcome.status == "done" and outcome.report is not None
    rolled = outcome.report.extra["archive"]
    assert [(r["month"], r["episodes"]) for r in rolled] == [("2026-08", 1), ("2026-09", 1)]
    assert rt.store.files("archive/") == ["archive/2026-11-29.jsonl"]
    subjects = [c.summary for c in rt.store.log(limit=8)]
    assert any(s.startswith("archive: roll up 2026-08") for s in subjects)
    # the snapshot is published after the roll-up, and hippo's refs do not hold the cold one
    assert COLD_REF not in {f"refs/hippo/{n}" for n in rt.store.refs()}
    from memory.dream import digest

    shown = json.dumps(digest.blocks(outcome.report, console_url="http://hippo.test"))
    assert "Archive rolled into cold storage" in shown and "2026-08: 1 episodes" in shown
    hits = rt.store.search("release train", archive=True)
    assert {h.path for h in hits} >= {
        "refs/hippo-cold/archive:months/2026-08.jsonl.gz",
        "archive/2026-11-29.jsonl",
    }


def test_cli_archive_roll_up_and_status(
    slack_runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = slack_runtime
    rt.store.write(
        [WriteFile(p, t) for p, t in EPISODES.items()], author=Author("a", "a@x"), message="seed"
    )
    assert main(["archive", "roll-up", "--today", "2026-12-02", "--json"], rt.config) == 0
    rolled = json.loads(capsys.readouterr().out)
    assert [r["month"] for r in rolled] == ["2026-08", "2026-09"]
    assert main(["archive", "roll-up", "--today", "2026-12-02"], rt.config) == 0
    assert capsys.readouterr().out.startswith("Nothing to roll up")
    assert main(["archive", "status", "--json"], rt.config) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["tree"] == {"files": 1, "episodes": 1}
    assert found["cold"]["months"] == {"2026-08": 1, "2026-09": 1} and found["episodes"] == 3


def test_cli_rolls_a_full_forgotten_md_and_counts_its_records(
    slack_runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo archive roll-up` also rolls forgotten.md past its mark; status counts both sides."""
    from memory.archive.forgotten import HIGH, LOW
    from memory.git.batch import DREAMER

    rt = slack_runtime
    stones = "# Forgotten\n\n" + "".join(
        f"- fact {i} of {m} is stale now [removed: {m}-03; by: U1; reason: stale]\n"
        for m in ("2026-05", "2026-06", "2026-07", "2026-11")
        for i in range(6_000)
    )
    assert len(stones.encode()) > HIGH
    rt.store.write([WriteFile("forgotten.md", stones)], author=DREAMER, message="seed")
    assert main(["archive", "roll-up", "--today", "2026-12-02", "--json"], rt.config) == 0
    rolled = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == "forgotten"]
    assert [(r["month"], r["records"], r["created"]) for r in rolled] == [
        ("2026-05", 6_000, True),
        ("2026-06", 6_000, True),
    ]
    assert len(rt.store.read("forgotten.md").encode()) <= LOW
    assert main(["archive", "status", "--json"], rt.config) == 0
    found = json.loads(capsys.readouterr().out)["forgotten"]
    assert found["cold"] == {"months": {"2026-05": 6_000, "2026-06": 6_000}, "records": 12_000}
    assert found["tree"]["records"] == 12_000  # July and November: 24,000 in all, none lost
    assert main(["archive", "status"], rt.config) == 0
    assert "forgotten.md: 12000 records" in capsys.readouterr().out
