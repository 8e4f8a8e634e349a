"""Search after a commit: the index is updated from the tree diff and answers as a fresh build."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.search import Hit, SearchIndex
from memory.search.index import REBUILD_FILES

QUERIES = ["a", "b", "ab", "a b", '"a b"', "x", "forgotten", "revoked", "İ", "c", "b c fork 1"]

PATHS = ["a.md", "Ab/b.md", "c.txt", "d.md", "forgotten.md", "archive/x.jsonl", "z/İ.md"]
TEXT = st.text(alphabet="abcAB -#[]:;\n\tİä`*1.x", max_size=60).map(str.encode)
REVOKED = b"- a b revoked [status: revoked]\n"


def changes(old: dict[str, bytes], new: dict[str, bytes]) -> list[str]:
    """The paths a tree diff reports: added, modified and removed."""
    return [p for p in old.keys() | new.keys() if old.get(p) != new.get(p)]


Answers = tuple[int, dict[tuple[str, int, bool], list[Hit]]]
# A fresh build's answers per tree: each example checks a tree against them up to five times
# (the index, the one it grew from, the fork, again after the fork); a build is deterministic,
# so they are computed once (this test took 92 s of CPU, a sixth of the suite).
_FRESH: dict[tuple[tuple[tuple[str, bytes], ...], bool], Answers] = {}


def fresh_answers(tree: dict[str, bytes], archive: bool) -> Answers:
    key = (tuple(sorted(tree.items())), archive)
    if key not in _FRESH:
        fresh = SearchIndex.build(tree, archive=archive)
        said = {
            (query, limit, exact): fresh.search(query, limit, all_words=exact)
            for query in QUERIES
            for limit in (1, 3, 10**6)
            for exact in (False, True)
        }
        _FRESH[key] = (len(fresh), said)
    return _FRESH[key]


def same_answers(index: SearchIndex, tree: dict[str, bytes]) -> None:
    size, fresh = fresh_answers(tree, index.archive)
    assert len(index) == size
    for query in QUERIES:
        for limit in (1, 3, 10**6):
            assert index.search(query, limit) == fresh[query, limit, False], (query, limit)
            exact = index.search(query, limit, all_words=True)
            assert exact == fresh[query, limit, True], (query, limit)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(PATHS), TEXT | st.just(REVOKED) | st.just(b"\0bin a")),
        min_size=2,
        max_size=6,
    ),
    st.booleans(),
)
def test_an_updated_index_answers_as_a_fresh_build(
    trees: list[dict[str, bytes]], arch: bool
) -> None:
    """Through any chain of commits (files added, changed, removed, made binary, tombstones and
    revoked entries), the updated index gives exactly the hits, scores and order of an index
    built afresh from the same tree, at any limit; the one it grew from still answers for its
    own tree, whatever else grew from it."""
    index = SearchIndex.build(trees[0], archive=arch)
    for old, new in pairwise(trees):
        before = index
        index = index.updated(new, changes(old, new))
        same_answers(index, new)
        same_answers(before, old)
        # A second index grown from the same one (two threads, two commits) disturbs neither.
        other = old | {"fork.md": b"- a b fork\n"}
        fork = before.updated(other, ["fork.md"])
        same_answers(fork, other)
        same_answers(index, new)
        same_answers(before, old)


def test_a_one_file_commit_is_applied_not_rebuilt() -> None:
    """A note landing in one of many files updates the index (its age grows) and finds the new
    line, and no longer finds the line the commit replaced."""
    tree = {f"t/{i}.md": f"# Topic {i}\n- fact {i} about redis\n".encode() for i in range(400)}
    index = SearchIndex.build(tree)
    new = tree | {"t/7.md": b"# Topic 7\n- fact 7 about postgres now\n", "inbox.md": b"- hello\n"}
    updated = index.updated(new, ["t/7.md", "inbox.md"])
    assert updated.age == 1 and index.age == 0
    assert [(h.path, h.line) for h in updated.search("postgres")] == [("t/7.md", 2)]
    assert "t/7.md" not in {h.path for h in updated.search("redis", limit=10**6)}
    assert len(updated.search("redis", limit=10**6)) == 399
    assert updated.updated(new, []) is updated


def test_a_large_diff_or_much_dead_text_builds_afresh() -> None:
    """More than REBUILD_FILES changed files (and a quarter of them) builds afresh, and so does
    a chain of rewrites of one big file once its old versions pass a quarter of the text."""
    n = REBUILD_FILES * 5
    tree = {f"t/{i}.md": f"- fact {i}\n".encode() for i in range(n)}
    index = SearchIndex.build(tree)
    many = [f"t/{i}.md" for i in range(REBUILD_FILES + 1)]
    assert index.updated(tree | {p: b"- other\n" for p in many}, many).age == 1
    most = [f"t/{i}.md" for i in range(n // 4 + 1)]
    assert index.updated(tree | {p: b"- other\n" for p in most}, most).age == 0
    big = {"big.md": b"- big line\n" * 2000, "small.md": b"- small\n"}
    index = SearchIndex.build(big)
    ages = []
    for i in range(3):
        big = big | {"big.md": big["big.md"] + f"- more {i}\n".encode()}
        index = index.updated(big, ["big.md"])
        ages.append(index.age)
    assert ages == [0, 0, 0]  # one old version of a file that is most of the text: too much
    same_answers(index, big)


def test_ranked_ties_go_to_the_first_path_after_an_update() -> None:
    """Equal lines in two files: after the first path changes (so it is appended after the
    other in the updated text), ranked search still ranks it first, as a fresh build does."""
    filler = {f"t/{i}.md": f"- filler {i}\n".encode() for i in range(20)}
    tree = filler | {"a.md": b"- same fact\n", "b.md": b"- same fact\n"}
    new = tree | {"a.md": b"- same fact\n- other\n"}
    index = SearchIndex.build(tree).updated(new, ["a.md"])
    assert index.age == 1  # updated, not rebuilt
    fresh = SearchIndex.build(new)
    assert index.search("same fact") == fresh.search("same fact")
    assert [h.path for h in index.search("same fact")][:2] == ["a.md", "b.md"]
