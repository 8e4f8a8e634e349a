"""The dream's tags step (issue 29 item 4): near-duplicate tag spellings merge into one, each
merge its own commit that reverts alone; declared aliases merge too; at most MAX_MERGES a night."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import memory.format.tags as tags
from memory import format as fmt
from memory.dream import tag_vocabulary
from memory.dream.report import Report
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.format.lint import lint
from memory.git import DREAMER, Author, Store
from memory.writes import WriteFile

ALICE = Author("alice", "alice@example.com")
NIGHT = datetime(2026, 11, 30, 3, 0)
DEPLOY = (
    "# Deploy\n\n"
    "- drain the queue before a deploy [source: https://a; tags: Deploys, queue]\n"
    "\n"
    "- roll back with the script [tags: deploy]\n"
    "\n"
    "- the freeze starts Friday [tags: deploy; by: ann]\n"
)
K8S = "# Cluster\n\n- the cluster runs 1.29 [tags: k8s, on_call]\n\n- nodes drain at 02:00 [tags: on-call]\n"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    s.init()
    return s


def seed(store: Store, files: dict[str, str]) -> None:
    store.write([WriteFile(p, t) for p, t in files.items()], author=ALICE, message="seed")


def run(store: Store, now: datetime = NIGHT) -> Report:
    return dream(store, now=now, verifiers=Verifiers())


def tags_of(store: Store, path: str) -> dict[str, list[str]]:
    return {e.text: tags.of(e) for e in fmt.parse(store.read(path)).entries}


def test_spellings_of_one_tag_merge_each_in_its_own_commit(store: Store) -> None:
    """Deploys → deploy (the spelling most entries carry), on_call → on-call (a tie: the plain
    spelling), each its own `dream(tags)` commit; other metadata and tags stay; lint is clean."""
    seed(store, {"ops/deploy.md": DEPLOY, "ops/cluster.md": K8S})
    report = run(store)
    merged = [s for s in report.steps if s.step.startswith("tags:") and s.commit]
    assert sorted(s.step for s in merged) == ["tags:deploy", "tags:on-call"]
    assert all(len(s.files) == 1 for s in merged)
    deploy = tags_of(store, "ops/deploy.md")
    assert deploy["drain the queue before a deploy"] == ["deploy", "queue"]
    assert "source: https://a; tags: deploy, queue]" in store.read("ops/deploy.md")
    assert tags_of(store, "ops/cluster.md")["the cluster runs 1.29"] == ["k8s", "on-call"]
    subjects = [c.summary for c in store.log(limit=20) if c.author == DREAMER.name]
    assert "dream(tags): tag deploy: Deploys → deploy on 1 entries" in subjects
    assert lint(store.tree()) == []


@pytest.mark.parametrize("how", ["hippo", "git"])
def test_one_merge_reverts_alone_and_the_undo_sticks(
    store: Store, tmp_path: Path, how: str
) -> None:
    """The console's revert (store.revert) or a plain `git revert` pushed from a clone undoes
    one merge, the other stays; the next nights leave the un-merged spelling as it is."""
    seed(store, {"ops/deploy.md": DEPLOY, "ops/cluster.md": K8S})
    report = run(store)
    sha = next(s.commit for s in report.steps if s.step == "tags:on-call")
    assert sha is not None
    if how == "hippo":
        store.revert(sha, ALICE)
    else:
        work = tmp_path / "clone"
        remote = str(tmp_path / "remote.git")
        subprocess.run(["git", "clone", "-q", remote, str(work)], check=True)
        who = ["-c", "user.name=ann", "-c", "user.email=ann@example.com"]
        subprocess.run(["git", *who, "revert", "--no-edit", sha], cwd=work, check=True)
        subprocess.run(["git", "push", "-q", "origin", "HEAD"], cwd=work, check=True)
    store.sync()
    assert tags_of(store, "ops/cluster.md")["the cluster runs 1.29"] == ["k8s", "on_call"]
    assert tags_of(store, "ops/deploy.md")["drain the queue before a deploy"][0] == "deploy"
    for night in (1, 2):
        later = run(store, NIGHT + timedelta(days=night))
        assert not [s for s in later.steps if s.step.startswith("tags:") and s.commit]
    assert tags_of(store, "ops/cluster.md")["the cluster runs 1.29"] == ["k8s", "on_call"]


def test_declared_aliases_merge_into_the_declared_tag(store: Store) -> None:
    aliases = "# Tags\n\n- kubernetes [aliases: k8s, kube]\n"
    cluster = "# Cluster\n\n- the cluster runs 1.29 [tags: k8s]\n\n- nodes drain [tags: Kube]\n"
    seed(store, {"ops/cluster.md": cluster, tag_vocabulary.ALIASES: aliases})
    run(store)
    assert tags_of(store, "ops/cluster.md") == {
        "the cluster runs 1.29": ["kubernetes"],
        "nodes drain": ["kubernetes"],
    }
    assert ".hippo/" not in store.read("MEMORY.md")  # settings are not a topic


def test_a_night_merges_at_most_max_merges(store: Store) -> None:
    n = tag_vocabulary.MAX_MERGES + 2
    names = [f"topic{c}" for c in "abcdfghjklmnopqrtvwxyz"[:n]]  # plural Topicas…
    lines = [f"- fact {t} is so [tags: {t.title()}s]\n\n- fact {t} again [tags: {t}]\n" for t in names]  # fmt: skip
    # each merge's entries on their own file: a merge leaves the lines next to tonight's alone
    seed(store, {f"t/f{i}.md": f"# f{i}\n\n{line}" for i, line in enumerate(lines)})
    report = run(store)
    assert len([s for s in report.steps if s.step.startswith("tags:")]) == tag_vocabulary.MAX_MERGES
    assert report.extra["tags_waiting"] == 2
    report = run(store, NIGHT + timedelta(days=1))
    assert len([s for s in report.steps if s.step.startswith("tags:") and s.commit]) == 2


def test_the_index_lists_the_vocabulary_with_counts(store: Store) -> None:
    """After tonight's merges MEMORY.md's index has one line: each tag with the entries carrying
    it, most used first."""
    seed(store, {"ops/deploy.md": DEPLOY, "ops/cluster.md": K8S})
    run(store)
    line = "- tags (4; search `tag:<tag>`): deploy (3), on-call (2), k8s (1), queue (1)"
    assert line in store.read("MEMORY.md").splitlines()


def test_the_vocabulary_line_keeps_the_index_in_its_budget() -> None:
    from collections import Counter

    from memory.dream import index as index_step

    counts = Counter({f"tag-{i:03}": 1000 - i for i in range(200)} | {"ok$no": 5000})
    line = index_step.tags_line(counts)
    assert line.endswith(", … and 170 more") and "tag-000 (1000), tag-001 (999)" in line
    assert "ok$no" not in line  # pushed with plain git: lint reports it, the index leaves it out
    tree = {f"f/{i:03}.md": f"# file {i}\n" for i in range(400)}
    lines = index_step.render_index(tree, ["# Memory", ""], tag_counts=counts)
    assert len(lines) + 2 <= fmt.INDEX_MAX_LINES and line in lines


def test_a_rerun_the_same_night_reports_each_merge(store: Store) -> None:
    """The night already ran (a digest lost to a crash is posted from this): every merge's
    commit is in the report, in the order they were made, and nothing is written again."""
    seed(store, {"ops/deploy.md": DEPLOY, "ops/cluster.md": K8S})
    first = run(store)
    head = store.head()
    again = run(store)
    assert again.skipped and store.head() == head
    names = [s.step for s in first.steps if s.commit]
    assert [s.step for s in again.steps] == names
