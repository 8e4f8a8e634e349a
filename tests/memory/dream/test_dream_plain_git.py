"""Issue 24 item 13: a person's plain `git push` cannot undo the rules. It sets `.dream/state.json`
`lastRun` to tonight and brings a forgotten fact back; `hippo lint` reports both, the dream runs
all the same (the digest says the state was ignored) and removes the fact again, naming the
commit; a fact brought back through hippo (`hippo note --force`) stays."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from bot.cli.main import main
from memory import format as fmt
from memory.dream import digest
from memory.dream.run import dream
from memory.git import Store

STALE = "the staging database is reset every night at 02:00"
FORCED = "the release train leaves on tuesdays at noon"
KEPT = "deploys need two approvals from the platform team"


def git(cwd: Path, *args: str) -> str:
    run = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return run.stdout.strip()


def lint_codes(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]]]:  # fmt: skip
    capsys.readouterr()
    code = main([*argv, "lint", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_plain_push_cannot_skip_the_dream_or_resurrect_a_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = tmp_path / "remote.git"
    argv = ["--remote", str(remote), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "init"]) == 0
    for fact in (STALE, FORCED, KEPT):
        assert main([*argv, "note", fact, "--path", "ops/db.md", "--by", "ann"]) == 0
    for fact in (STALE, FORCED):
        assert main([*argv, "forget", fact, "--by", "ann"]) == 0
    assert main([*argv, "note", FORCED, "--path", "ops/db.md", "--by", "ann", "--force"]) == 0
    store = Store.open(str(remote), tmp_path / "dream-data")
    dream(store, now=datetime(2026, 11, 30, 3))  # last night: a state dreaming wrote

    work = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    state = json.loads((work / ".dream/state.json").read_text())
    state["lastRun"] = "2026-11-30"  # tonight's run id: the dream would skip
    (work / ".dream/state.json").write_text(json.dumps(state))
    with (work / "ops/db.md").open("a") as f:
        f.write(f"- {STALE}\n")
    git(work, "-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "-qam", "tidy")  # fmt: skip
    git(work, "push", "-q", "origin", "HEAD")
    pushed = git(work, "rev-parse", "HEAD")[:8]

    code, problems = lint_codes(argv, capsys)
    assert code == 1
    found = {(p["path"], p["code"]) for p in problems}
    assert found == {(".dream/state.json", "foreign-state"), ("ops/db.md", "resurrected")}
    assert all(pushed in str(p["message"]) for p in problems)

    report = dream(store, now=datetime(2026, 12, 1, 3))
    assert not report.skipped and "tidy" in report.commits
    texts = [e.text for e in fmt.parse(store.read("ops/db.md")).entries]
    assert texts == [KEPT, FORCED]
    tidy = store.diff(report.commits["tidy"]).commit.message
    assert f"removed resurrected ops/db.md: '{STALE}'" in tidy and pushed in tidy
    said = [b["text"]["text"] for b in digest.blocks(report, console_url="") if b.get("text")]
    assert any(s.startswith("*State ignored*") and pushed in s for s in said)
    assert lint_codes(argv, capsys) == (0, [])


FACTS = [f"the {svc} cache is flushed every night at 0{i}:00" for i, svc in
         enumerate(("billing", "search", "orders", "ledger", "invoice"), start=1)]  # fmt: skip


def test_every_resurrected_fact_goes_whenever_it_came_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37, section 4: five forgotten facts pushed back with plain git before the memory's
    first dream (so no file "changed since the last dream"). Before, none was ever removed,
    `hippo brief` served them [active] and lint kept promising the next dream. Now the first
    night looks at every file and removes three (the cap of a small memory), the digest counts
    them; the two that waited are briefed tentative, never active, and go the next night
    although their file did not change since."""
    remote = tmp_path / "remote.git"
    argv = ["--remote", str(remote), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "init"]) == 0
    assert main([*argv, "note", KEPT, "--path", "ops/cache.md", "--by", "ann"]) == 0
    for fact in FACTS:
        assert main([*argv, "note", fact, "--path", "ops/cache.md", "--by", "ann"]) == 0
        assert main([*argv, "forget", fact, "--by", "ann"]) == 0
    work = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    with (work / "ops/cache.md").open("a") as f:
        f.writelines(f"- {fact}\n" for fact in FACTS)
    git(work, "-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "-qam", "restore")  # fmt: skip
    git(work, "push", "-q", "origin", "HEAD")
    store = Store.open(str(remote), tmp_path / "dream-data")

    report = dream(store, now=datetime(2026, 11, 30, 3))
    left = [e.text for e in fmt.parse(store.read("ops/cache.md")).entries]
    assert left == [KEPT, *FACTS[3:]]
    said = [b["text"]["text"] for b in digest.blocks(report, console_url="") if b.get("text")]
    assert any(s.startswith("*Deletions*: 3 of at most 3") for s in said), said
    capsys.readouterr()
    assert main([*argv, "brief", "--json", "cache", "flushed", "every", "night"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    statuses = {x["text"]: x["status"] for x in lines}
    assert statuses[KEPT] == "active" and statuses[FACTS[3]] == statuses[FACTS[4]] == "tentative"
    assert "forgotten.md" in next(x for x in lines if x["text"] == FACTS[3])["contradicts"]
    code, problems = lint_codes(argv, capsys)
    assert code == 1 and {p["code"] for p in problems} == {"resurrected"}

    dream(store, now=datetime(2026, 12, 1, 3))  # ops/cache.md did not change since
    assert [e.text for e in fmt.parse(store.read("ops/cache.md")).entries] == [KEPT]
    assert lint_codes(argv, capsys) == (0, [])


def test_a_part_the_write_path_refuses_waits_and_the_night_goes_on(tmp_path: Path) -> None:
    """A plain push of a fact said twice that holds a token (the write path refuses that text
    anywhere): tidy's merge would record the copy in forgotten.md, which is refused. Before,
    that refusal in tidy's own working tree stopped the whole dream (bench/dream.py at 10,000
    files stopped so on a false positive of the secret scan); now that part waits, its message
    in the commit, and the rest of the night is written."""
    remote = tmp_path / "remote.git"
    assert main(["--remote", str(remote), "--data-dir", str(tmp_path / "data"), "init"]) == 0
    work = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    token = "ghp_" + "x1" * 18
    said = f"the ci bot reads its token {token} from the vault"
    (work / "ops").mkdir()
    (work / "ops/ci.md").write_text(
        f"# ci\n\n- {said}\n- {said} [source: https://wiki.example/ci]\n"
    )
    (work / "inbox.md").write_text("# Inbox\n\n- the ci runners live in eu-west-1 [[ops/ci]]\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=Ann", "-c", "user.email=a@example.com", "commit", "-qm", "ci")  # fmt: skip
    git(work, "push", "-q", "origin", "HEAD")
    store = Store.open(str(remote), tmp_path / "dream-data")
    report = dream(store, now=datetime(2026, 11, 30, 3))
    assert {"tidy", "index", "state"} <= set(report.commits)
    tidy = store.diff(report.commits["tidy"]).commit.message
    assert "merge duplicates: not written tonight" in tidy and "secret" in tidy
    assert "ci runners" in store.read("ops/ci.md")  # the inbox note was filed all the same
