"""How an agent pull request ended: classification, diffs and edit signatures (pure)."""

from __future__ import annotations

from dataclasses import replace

from memory.lessons import pull_requests as po

AGENTS = ("hippo-agent[bot]",)
AGENT = "hippo-agent[bot]"

OLD = "import mock\n\ndef test_a():\n    client = mock.Mock()\n    assert client\n"
NEW = "from tests.fixtures import client\n\ndef test_a(client):\n    assert client\n"


def facts(**kw: object) -> po.PullFacts:
    base = po.PullFacts(
        repo="octo/app",
        number=7,
        url="https://github.com/octo/app/pull/7",
        title="Fix the thing",
        opener=AGENT,
        merged=True,
        closed_by="alice",
        closed_by_bot=False,
        commits=(po.Commit("a1", AGENT, AGENT),),
        files=("tests/unit/test_a.py",),
        human_diff=(),
        agent_sha="a1",
        writers=frozenset({"alice", "bob", "carol", "dave"}),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def edited() -> po.PullFacts:
    diff = po.diff_texts("tests/unit/test_a.py", OLD, NEW)
    commits = (po.Commit("a1", AGENT, AGENT), po.Commit("h1", "alice", "web-flow"))
    return facts(commits=commits, human_diff=(diff,))


def test_merged_with_only_agent_commits_is_untouched() -> None:
    """A merge holding only the agent's commits and no human diff is 'merged untouched'."""
    assert po.classify(facts(), AGENTS) == po.MERGED_UNTOUCHED


def test_people_commits_on_top_make_merged_after_changes() -> None:
    """Human commits that change what landed make 'merged after people changed it'."""
    assert po.classify(edited(), AGENTS) == po.MERGED_AFTER_CHANGES


def test_base_branch_drift_without_human_hand_is_untouched() -> None:
    """A landed difference with no human commit and the agent tip intact is not a correction."""
    diff = po.diff_texts("tests/unit/test_a.py", OLD, NEW)
    assert po.classify(facts(human_diff=(diff,)), AGENTS) == po.MERGED_UNTOUCHED


def test_force_push_rewriting_the_agent_tip_counts_as_people_changes() -> None:
    """If the agent's recorded tip is gone from the branch, a difference is a human rewrite."""
    diff = po.diff_texts("tests/unit/test_a.py", OLD, NEW)
    f = facts(human_diff=(diff,), agent_sha="gone", commits=(po.Commit("x9", AGENT, "bob"),))
    assert po.classify(f, AGENTS) == po.MERGED_AFTER_CHANGES


def test_closed_by_a_person_and_by_the_system() -> None:
    """Closed unmerged by a person is 'closed by a person'; bots, the agent, nobody: system."""
    assert po.classify(facts(merged=False), AGENTS) == po.CLOSED_BY_PERSON
    for closer, bot in (
        ("dependabot[bot]", False),
        ("ci-robot", True),
        (AGENT, False),
        ("", False),
    ):
        f = facts(merged=False, closed_by=closer, closed_by_bot=bot)
        assert po.classify(f, AGENTS) == po.CLOSED_BY_SYSTEM


def test_agent_pull_requests_by_login_or_label() -> None:
    """A pull request is the agent's if its opener is an agent login or it carries the label."""
    assert po.is_agent_pr(AGENT, [], AGENTS, "hippo-agent")
    assert po.is_agent_pr("alice", ["Hippo-Agent"], AGENTS, "hippo-agent")
    assert not po.is_agent_pr("alice", ["bug"], AGENTS, "hippo-agent")


def test_a_labelled_pull_request_opened_under_another_account_learns_from_edits() -> None:
    """With no agent-login commit, the opener's commits are the agent's and others' are people's."""
    diff = po.diff_texts("tests/unit/test_a.py", OLD, NEW)
    commits = (po.Commit("o1", "ci-agent", "ci-agent"), po.Commit("h1", "bob", "bob"))
    f = facts(opener="ci-agent", commits=commits, human_diff=(diff,), agent_sha="o1")
    assert po.agent_identities("ci-agent", commits, AGENTS) == (AGENT, "ci-agent")
    assert po.agent_tip(commits, po.agent_identities("ci-agent", commits, AGENTS)) == "o1"
    assert [c.sha for c in po.human_commits(f, AGENTS)] == ["h1"]
    assert po.classify(f, AGENTS) == po.MERGED_AFTER_CHANGES
    # Where the agent login committed, a person who opened and labelled it stays a person.
    mixed = (po.Commit("a1", AGENT, AGENT), po.Commit("h2", "carol", "carol"))
    assert po.agent_identities("carol", mixed, AGENTS) == AGENTS


def test_agent_tip_prefers_recorded_pushes_then_the_commit_list() -> None:
    """The agent's last commit is the last recorded push, else its last commit on the branch."""
    commits = (
        po.Commit("a1", AGENT, AGENT),
        po.Commit("a2", "", AGENT),
        po.Commit("h", "bo", "bo"),
    )
    assert po.agent_tip(commits, AGENTS) == "a2"
    assert po.agent_tip(commits, AGENTS, ["p1", "p2"]) == "p2"
    assert po.agent_tip((po.Commit("h", "bo", "bo"),), AGENTS) == ""


def test_diff_texts_gives_hunks_with_added_and_removed_lines() -> None:
    """A file diff lists hunks with the removed and added lines and counts them."""
    d = po.diff_texts("tests/unit/test_a.py", OLD, NEW)
    assert d.status == "modified" and len(d.hunks) == 1
    assert "    client = mock.Mock()" in d.hunks[0].removed
    assert "def test_a(client):" in d.hunks[0].added
    assert (d.additions, d.deletions) == (2, 3)
    assert po.diff_texts("n.py", None, "x\n").status == "added"
    assert po.diff_texts("n.py", "x\n", None).status == "removed"


def test_diff_files_compares_only_touched_paths() -> None:
    """diff_files reads both commits per touched path and skips unchanged files."""
    trees = {"a": {"x.py": OLD, "y.py": "same\n"}, "b": {"x.py": NEW, "y.py": "same\n"}}
    out = po.diff_files(lambda sha, p: trees[sha].get(p), "a", "b", ["y.py", "x.py", "z.py"])
    assert [d.path for d in out] == ["x.py"]


def test_file_kind_is_directory_plus_extension() -> None:
    """A file's kind is its directory plus extension pattern."""
    assert po.file_kind("tests/unit/test_api.py") == "tests/unit/*.py"
    assert po.file_kind("setup.cfg") == "*.cfg"
    assert po.file_kind("docker/Makefile") == "docker/Makefile"


def test_signature_of_an_edit_and_its_round_trip() -> None:
    """An edit signs with file kinds and the words added and removed; it renders and parses."""
    sig = po.signature(edited(), po.MERGED_AFTER_CHANGES)
    assert sig.scope == {"tests/unit/*.py"}
    assert "fixtures" in sig.added and "mock" in sig.removed
    assert po.Signature.parse(sig.render()) == sig
    odd = replace(sig, scope=frozenset({"docs/My Notes, old/*.md", "*.py"}))
    assert po.Signature.parse(odd.render()) == odd


def test_same_and_contradicting_signatures() -> None:
    """Same kind of files with overlapping words is the same; the inverted edit contradicts."""
    sig = po.signature(edited(), po.MERGED_AFTER_CHANGES)
    other_file = po.diff_texts(
        "tests/unit/test_b.py", OLD.replace("_a", "_b"), NEW.replace("_a", "_b")
    )
    again = po.signature(facts(human_diff=(other_file,)), po.MERGED_AFTER_CHANGES)
    assert sig.same(again)
    back = po.diff_texts("tests/unit/test_c.py", NEW, OLD)
    reverted = po.signature(facts(human_diff=(back,)), po.MERGED_AFTER_CHANGES)
    assert sig.contradicts(reverted) and not sig.same(reverted)
    elsewhere = replace(again, scope=frozenset({"docs/*.md"}))
    assert not sig.same(elsewhere)


def test_closing_words_prefer_the_closers_comment() -> None:
    """The reason for a close is the closer's comment, else a change request, else any comment."""
    comments = (
        po.Comment("bob", "looks odd", "review_comment", path="x.py"),
        po.Comment("carol", "We never touch vendored code", "review", state="CHANGES_REQUESTED"),
        po.Comment(
            "alice", "Superseded by #9, we pin versions in constraints.txt", "issue_comment"
        ),
        po.Comment("ci[bot]", "coverage 90%", "issue_comment"),
    )
    assert po.closing_words(facts(merged=False, comments=comments)).startswith("Superseded")
    no_closer = facts(merged=False, closed_by="dave", comments=comments)
    assert po.closing_words(no_closer) == "We never touch vendored code"
    assert po.closing_words(facts(merged=False)) == ""
