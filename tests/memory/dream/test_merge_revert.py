"""Issue 26: a merge never discards a fact. The copy merged away is recorded in forgotten.md, and
the merge is undone whole, record included, by the console's revert and by a plain `git revert`
of the merge commit pushed from a clone: both entries come back as they were, with their own
sources, and hippo reads and writes the result. The undo sticks: the next night does not merge
the two again on its own (they are listed as a possible duplicate for a person)."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from memory import format as fmt
from memory.dream.merge import merge_pair
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.writes import AddEntry, WriteFile
from tests.bot.test_console import csrf, make_rt, sign_in

ANN = Author("ann", "ann@example.com")
NIGHT = datetime(2026, 11, 30, 3, 0)
ONCALL = "# On-call\n\n- on-call hands over every Monday at 10:00 [source: https://a; added: 2026-10-01]\n"  # fmt: skip
OPS = "# Ops\n\n- The on call hands over every Monday at 10am. [source: https://b; added: 2026-11-01]\n"  # fmt: skip
# close, not provably one statement: left for a person's Merge button
CACHE = (
    "# Cache\n\n- the cache is flushed after each deploy [source: https://c; added: 2026-10-01]\n"
)
DEPLOY = (
    "# Deploy\n\n- after every deploy we flush the cache [source: https://d; added: 2026-11-01]\n"
)
FILES = {"teams/oncall.md": ONCALL, "teams/ops.md": OPS}


def git(cwd: Path, *args: str) -> str:
    run = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return run.stdout.strip()


def merged_tonight(store: Store) -> str:
    """Seed the two spellings of one statement, dream, and return the tidy commit that merged
    them (one entry left with both sources, the other recorded in forgotten.md)."""
    store.write([WriteFile(p, t) for p, t in FILES.items()], author=ANN, message="seed")
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    sha = report.commits["tidy"]
    assert "1 duplicates merged" in store.diff(sha).commit.message
    left = [e for p in FILES for e in fmt.parse(store.read_or_none(p) or "").entries]
    assert len(left) == 1 and sorted(left[0].get_all("source")) == ["https://a", "https://b"]
    stones = fmt.parse(store.read("forgotten.md")).entries
    assert [(s.get("reason") or "").startswith("merged into teams/") for s in stones] == [True]
    return sha


def assert_both_back(store: Store, files: dict[str, str]) -> None:
    """Each file as it was before the merge, and no record of the merge in forgotten.md."""
    for path, text in files.items():
        assert store.read(path) == text
    forgotten = store.read_or_none("forgotten.md") or ""
    assert "merged into" not in forgotten


def next_night_keeps_both(store: Store, files: dict[str, str]) -> None:
    report = dream(store, now=datetime(2026, 12, 1, 3, 0), verifiers=Verifiers())
    for path, text in files.items():
        assert fmt.parse(store.read(path)).entries[0].text in text
    possible = report.extra["possible_duplicates"]
    assert [p.why for p in possible] == ["a person undid a merge of these before"]


def test_the_console_reverts_a_nights_merge_and_its_record(tmp_path: Path) -> None:
    rt = make_rt(tmp_path)
    try:
        sha = merged_tonight(rt.store)
        client: FlaskClient = create_app(rt.config, rt).test_client()
        sign_in(client)
        token = csrf(client, f"/console/commit/{sha}")
        resp = client.post(f"/console/revert/{sha}", data={"csrf_token": token})
        assert resp.status_code == 302, resp.get_data(as_text=True)
        rt.store.sync(max_age=0)
        assert_both_back(rt.store, FILES)
        # the facts are hippo's again: a note on either file is written as usual
        rt.store.write(
            [AddEntry("teams/ops.md", "pager rota is in opsgenie")], author=ANN, message="n"
        )
        assert "pager rota is in opsgenie" in rt.store.read("teams/ops.md")
        next_night_keeps_both(rt.store, FILES)
    finally:
        rt.close()


@pytest.mark.parametrize("how", ["dream", "merge button"])
def test_git_revert_of_a_merge_commit_brings_both_entries_back(tmp_path: Path, how: str) -> None:
    remote = tmp_path / "remote.git"
    store = Store.open(str(remote), tmp_path / "data")
    store.init()
    if how == "dream":
        files = FILES
        sha = merged_tonight(store)
    else:
        files = {"runbooks/cache.md": CACHE, "runbooks/deploy.md": DEPLOY}
        store.write([WriteFile(p, t) for p, t in files.items()], author=ANN, message="seed")
        pair = (
            "runbooks/cache.md",
            "the cache is flushed after each deploy",
            "runbooks/deploy.md",
            "after every deploy we flush the cache",
        )
        written = merge_pair(store, pair, by="ann", today="2026-11-30", author=ANN, key="m:1")
        assert written is not None and written.created
        sha = written.commit
        assert "merged into" in store.read("forgotten.md")

    work = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    who = ["-c", "user.name=Bea", "-c", "user.email=bea@example.com"]
    git(work, *who, "revert", "--no-edit", sha)
    git(work, "push", "-q", "origin", "HEAD:main")

    store.sync(max_age=0)
    assert store.head() == git(work, "rev-parse", "HEAD")
    assert_both_back(store, files)
    path = next(iter(files))
    store.write([AddEntry(path, "a note after the revert")], author=ANN, message="note")
    assert "a note after the revert" in store.read(path)
    if how == "dream":
        next_night_keeps_both(store, files)
