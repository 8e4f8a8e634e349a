"""Repository names and preferences paths (memory/repo_prefs.py), and search by any word."""

from __future__ import annotations

import pytest

from memory import repo_prefs
from memory.repo_prefs import BadRepo, check_repo, known, named, path_for
from memory.search import SearchIndex


def test_repository_names_as_github_spells_them() -> None:
    assert check_repo(" acme/shop.git ") == "acme/shop"
    assert path_for("acme/shop") == "preferences/repos/acme/shop.md"
    assert repo_prefs.conventions_for("acme/shop") == "conventions/acme/shop.md"
    for bad in ["acme", "acme/shop/x", "-acme/shop", "acme/..", "../etc/passwd", "a b/c", ""]:
        with pytest.raises(BadRepo, match="owner/name"):
            check_repo(bad)


def test_repositories_named_in_prose_not_in_urls_or_paths() -> None:
    text = "In acme/shop, see https://github.com/other/repo and src/app/main.py; then acme/api."
    assert named(text) == ["acme/shop", "acme/api"]


def test_known_repositories_are_those_memory_holds() -> None:
    """'and/or' is prose: only names with conventions or preferences in memory count."""
    files = {"conventions/acme/shop.md", "preferences/repos/acme/api.md"}
    text = "fix and/or test acme/api, then acme/shop and acme/unknown"
    assert known(text, files.__contains__) == ["acme/api", "acme/shop"]


def test_a_task_in_prose_ranks_lines_holding_more_and_rarer_words() -> None:
    """A task in prose (a briefing's words): lines holding any word are found, more and rarer
    words first, a file whose title holds a word next; a word on most lines of a big memory
    weighs little. Deterministic."""
    filler = "".join(f"- common note {i}\n" for i in range(60_000))
    tree = {
        "a.md": b"# a\n\n- refund api retries twice\n- refund totals\n",
        "b.md": b"# b\n\n- api keys rotate\n",
        "keys.md": b"# retries\n\n- api keys never expire\n",
        "c.md": ("# c\n\n" + filler).encode(),
    }
    index = SearchIndex.build(tree)
    hits = index.search("refund api retries common", limit=3)
    assert [(h.path, h.text) for h in hits] == [
        ("a.md", "refund api retries twice"),  # three words, the rarest among them
        ("keys.md", "api keys never expire"),  # a word, in a file whose title holds another
        ("a.md", "refund totals"),  # the rarest word alone
    ]
    assert hits == index.search("refund api retries common", limit=3)
