"""The dream's layout step (issue 39, items 2 and 11): titles, merges, splits and regroups are
proposed, one entry of proposals.md each; accepting one is one commit (links rewritten), which
reverts alone; nothing moves without a person."""

from __future__ import annotations

from datetime import datetime

from memory import format as fmt
from memory.dream.run import dream
from memory.git import Author, Store
from memory.trust import proposals
from memory.writes import WriteFile

ALICE = Author("alice", "alice@example.com")
NIGHT = datetime(2026, 11, 30, 3)

NOTES = (
    "# Notes\n\n"
    "- the checkout vendor sandbox answers 504 under parallel load\n"
    "- checkout retries vendor calls five times before failing\n"
    "- the vendor sandbox resets its data every Sunday night\n"
    "- checkout timeouts are set in config/vendor.toml\n"
)
SECTIONED = (
    "# Platform\n\nWhat the platform team keeps.\n\n"
    "## Kafka\n\n- kafka brokers run on three nodes\n- topic retention is seven days\n"
    "- consumer lag alerts page at 10k messages\n\n"
    "## Certificates\n\n- tls certificates renew through cert-manager\n"
    "- the wildcard certificate expires each March\n- renewals email the security list\n\n"
    "## Holidays\n\n- no deploys on public holidays\n- the office closes at Christmas\n"
    "- holiday rotas live in the shared calendar\n"
)


def seed(store: Store) -> None:
    files = {
        "notes.md": NOTES,
        "runbooks/deploy.md": "# Deploy\n\n- deploys go out from main\n- a deploy needs two approvals\n",
        "runbooks/deploys.md": "# Deploys\n\n- deploys pause during the freeze\n",
        "teams/platform.md": SECTIONED,
        "services/checkout.md": "# Checkout\n\n- see [[runbooks/deploys]] and [[notes]]\n",
    }
    for i in range(41):
        name = f"alert-{i}" if i < 6 else f"page{i}"
        files[f"ops/{name}.md"] = f"# {name}\n\n- owned by the on-call rotation {i}\n"
    store.write([WriteFile(p, t) for p, t in files.items()], author=ALICE, message="seed")


def pending(store: Store) -> dict[str, proposals.Proposal]:
    tree = {p: b.decode() for p, b in store.tree().items()}
    return {p.kind: p for p in proposals.pending(tree)}


def accept(store: Store, p: proposals.Proposal) -> str:
    tree = {p: b.decode() for p, b in store.tree().items()}
    ops = proposals.settle(tree, p, accept=True, by="alice", today="2026-11-30")
    return store.write(ops, author=ALICE, message=f"proposal accepted: {p.describe()}").commit


def test_layout_changes_are_proposed_one_each_and_nothing_moves(store: Store) -> None:
    """One dream proposes: a title for notes.md from its entries, merging runbooks/deploys.md
    into runbooks/deploy.md, splitting the three subjects of teams/platform.md, and moving the
    six ops/alert-* files into ops/alert/; every file stays where it was."""
    seed(store)
    before = set(store.tree())
    dream(store, now=NIGHT)
    found = pending(store)
    assert found["title"].path == "notes.md"
    assert found["title"].text == "Checkout, sandbox, vendor"
    assert found["merge"].path == "runbooks/deploys.md"
    assert dict(found["merge"].meta)["into"] == "runbooks/deploy.md"
    assert dict(found["split"].meta)["into"] == (
        "teams/platform/kafka.md, teams/platform/certificates.md, teams/platform/holidays.md"
    )
    assert found["regroup"].text.startswith("move 6 files into ops/alert/ (6 of 41 files")
    assert before <= set(store.tree()) and "ops/alert/0.md" not in store.tree()


def test_accepting_is_one_commit_with_links_rewritten_and_reverts_alone(store: Store) -> None:
    """Accepting the merge writes one commit by the person: deploys.md's lines under deploy.md,
    deploys.md gone, the link to it in services/checkout.md rewritten; reverting that commit
    puts it all back. Accepting the title rewrites notes.md's first line only."""
    seed(store)
    dream(store, now=NIGHT)
    found = pending(store)
    done = accept(store, found["merge"])
    assert store.read_or_none("runbooks/deploys.md") is None
    merged = store.read("runbooks/deploy.md")
    assert "## Deploys\n\n- deploys pause during the freeze\n" in merged
    assert "[[runbooks/deploy]] and [[notes]]" in store.read("services/checkout.md")
    assert "merge runbooks/deploys.md" not in store.read("proposals.md")
    store.revert(done, ALICE)
    assert "[[runbooks/deploys]]" in store.read("services/checkout.md")
    assert store.read("runbooks/deploys.md").startswith("# Deploys")
    accept(store, pending(store)["title"])
    text = store.read("notes.md")
    assert text.startswith("# Checkout, sandbox, vendor\n\n- the checkout vendor")
    assert len(fmt.parse(text).entries) == 4


def test_a_split_keeps_the_file_as_links_to_its_parts(store: Store) -> None:
    """Accepting the split writes each section as its own file and leaves teams/platform.md with
    its title, its prose and links to the parts; a regroup moves the files and their links."""
    seed(store)
    dream(store, now=NIGHT)
    found = pending(store)
    accept(store, found["split"])
    left = store.read("teams/platform.md")
    assert left.startswith(
        "# Platform\n\nWhat the platform team keeps.\n\n- [[teams/platform/kafka]]"
    )
    assert store.read("teams/platform/holidays.md").startswith("# Holidays\n\n- no deploys")
    accept(store, pending(store)["regroup"])
    assert (
        store.read("ops/alert/3.md").startswith("# alert-3")
        and "ops/alert-3.md" not in store.tree()
    )
