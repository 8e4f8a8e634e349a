"""Ranked search (the default): every query word counts, a missing one costs rank, never the hit;
word forms, partial words and typos match; quoted phrases and +words must match."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.search import Hit, SearchIndex

SRC = "source: https://acme.slack.com/archives/C1/p1"


def tree(**files: str) -> dict[str, bytes]:
    """A tree from keyword args: `services__checkout_api` -> `services/checkout-api.md`."""
    return {k.replace("__", "/").replace("_", "-") + ".md": v.encode() for k, v in files.items()}


def where(hits: list[Hit]) -> list[tuple[str, int]]:
    return [(h.path, h.line) for h in hits]


NOTES = SearchIndex.build(
    tree(
        services__checkout_api="# Checkout API\n\n"
        f"- 504s come from the vendor sandbox under parallel load [{SRC}; added: 2026-10-14]\n"
        "- deploys take 5 minutes and need a freeze on Fridays\n",
        services__billing="# Billing\n- invoices are rendered by the ledger worker\n"
        "- the kubernetes configuration lives in the helm chart\n",
        notes="# Notes\n- redis timeout is 5s\n- redis is fine\n- timeout on postgres\n"
        "- the sandbox of the vendor resets nightly\n",
    )
)


def test_an_extra_word_costs_rank_not_the_hit() -> None:
    """A word the entry does not hold (as people add to a question) still finds it, first."""
    assert where(NOTES.search("redis timeout"))[0] == ("notes.md", 2)
    assert where(NOTES.search("why is the redis timeout so slow in production"))[0] == (
        "notes.md",
        2,
    )
    assert NOTES.search("redis timeout", all_words=True) != []
    assert NOTES.search("redis timeout production", all_words=True) == []  # the old rule


def test_lines_holding_more_and_rarer_words_rank_higher() -> None:
    """Two words beat one; of two-word lines, the one holding the rarer word (postgres, on one
    line, against redis on two) comes first."""
    hits = where(NOTES.search("redis postgres timeout"))
    assert hits[:3] == [("notes.md", 4), ("notes.md", 2), ("notes.md", 3)]


def test_word_forms_match() -> None:
    """deployed / deploying / deployment find `deploys`; rendering finds `rendered`."""
    for q in ["deployed", "deploying", "deployment", "DEPLOY"]:
        assert where(NOTES.search(q))[0] == ("services/checkout-api.md", 4), q
    assert where(NOTES.search("who renders invoice"))[0] == ("services/billing.md", 2)
    assert where(NOTES.search("504 errors"))[0] == ("services/checkout-api.md", 3)


def test_partial_words_match_the_words_they_begin() -> None:
    """`kube config` finds kubernetes configuration; a whole word outranks a longer one."""
    assert where(NOTES.search("kube config"))[0] == ("services/billing.md", 3)
    index = SearchIndex.build(tree(a="# A\n- the config flag\n- the configuration page\n"))
    assert where(index.search("config")) == [("a.md", 2), ("a.md", 3)]


def test_typos_match_words_one_edit_away_only_when_nothing_holds_the_word() -> None:
    """kuberntes, invocies, tiemout (swapped, dropped, changed letters) still find the line."""
    assert where(NOTES.search("kuberntes"))[0] == ("services/billing.md", 3)
    assert where(NOTES.search("invocies ledger"))[0] == ("services/billing.md", 2)
    assert where(NOTES.search("redis tiemout"))[0] == ("notes.md", 2)
    # A word some line holds is taken as written: `fine` finds `fine`, not `five` or `find`.
    index = SearchIndex.build(tree(a="# A\n- five pods\n- find logs\n- all fine\n"))
    assert where(index.search("fine")) == [("a.md", 4)]
    assert where(index.search("fiine")) == [("a.md", 4)]
    assert index.search("acme") == [] and where(index.search("fnid")) == [("a.md", 3)]


def test_quoted_phrases_must_match_exactly() -> None:
    """A phrase is required as written (words side by side, in order); words around it rank."""
    assert where(NOTES.search('"vendor sandbox"')) == [("services/checkout-api.md", 3)]
    assert where(NOTES.search('"sandbox of the vendor" nightly')) == [("notes.md", 5)]
    assert NOTES.search('"vendor sandboxes"') == []


def test_a_plus_word_is_required() -> None:
    """`+postgres timeout`: only lines holding postgres (in some form), ranked by the rest."""
    assert where(NOTES.search("+postgres timeout")) == [("notes.md", 4)]
    assert where(NOTES.search("+postgres +redis")) == []
    assert where(NOTES.search("+deploy friday")) == [("services/checkout-api.md", 4)]


def test_path_and_title_words_count_for_every_line_of_the_file() -> None:
    """`checkout 504s` finds the entry under services/checkout-api.md; a word naming a file
    makes its lines hits even when the line does not hold it."""
    assert where(NOTES.search("checkout 504s"))[0] == ("services/checkout-api.md", 3)
    found = where(NOTES.search("checkout", limit=10))
    assert ("services/checkout-api.md", 4) in found and ("services/checkout-api.md", 1) in found


def test_question_words_are_left_out_unless_they_are_all_there_is() -> None:
    """`what is the` is not a query about every line holding `the`; `the` alone still is."""
    assert NOTES.search("what is the") != []
    assert where(NOTES.search("what about the helm chart"))[0] == ("services/billing.md", 3)


def test_entries_outrank_prose_and_removed_facts_rank_last() -> None:
    """Same words: an entry before prose; tombstones and revoked entries after live facts."""
    index = SearchIndex.build(
        {
            "a.md": b"# A\n\nredis is the cache here.\n\n- redis is the cache\n",
            "forgotten.md": b"# Forgotten\n- redis is the cache [removed: 2026-10-01]\n",
            "lessons.md": b"# Lessons\n- redis is the cache [status: revoked]\n",
        }
    )
    hits = index.search("redis cache")
    assert [(h.path, h.entry) for h in hits[:2]] == [("a.md", True), ("a.md", False)]
    assert {h.path for h in hits[2:4]} == {"forgotten.md", "lessons.md"}


def test_newer_added_breaks_ties_then_path_order() -> None:
    index = SearchIndex.build(
        tree(
            a="# A\n- redis is slow [added: 2026-01-02]\n",
            b="# B\n- redis is slow [added: 2026-05-01]\n",
            c="# C\n- redis is slow\n",
            d="# D\n- redis is slow\n",
        )
    )
    assert [h.path for h in index.search("redis slow")] == ["b.md", "a.md", "c.md", "d.md"]


def test_metadata_is_not_searched_by_words() -> None:
    """Every entry has a source URL and a date: `slack archives` is not a query for all of them."""
    assert NOTES.search("archives acme") == []


INDEX = SearchIndex.build(
    tree(
        a='# A "quoted" title\n- redis [added: 2026-01-01]\n- [[b]] link\n',
        b="# B\n```\n- fenced\n",
        c="- ünïcödé İ ß ﬁ “quoted” words\n\n",
    )
)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.integers(min_value=-2, max_value=50))
def test_ranked_search_never_raises(query: str, limit: int) -> None:
    hits = INDEX.search(query, limit)
    assert len(hits) <= max(limit, 0)
    assert all(h.line >= 1 for h in hits)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab c-[]:\n+", max_size=200), min_size=1, max_size=8),
    st.text(alphabet='ab c"+', min_size=1, max_size=8),
    st.integers(min_value=1, max_value=4),
)
def test_any_top_k_is_the_head_of_the_full_ranking(texts: list[str], query: str, k: int) -> None:
    """For any files and query, the top k equal the first k of the unlimited ranking."""
    index = SearchIndex.build({f"f{i}.md": t.encode() for i, t in enumerate(texts)})
    full = index.search(query, limit=10**6)
    assert index.search(query, limit=k) == full[:k]
    assert len(full) == len({(h.path, h.line) for h in full})


def test_top_hits_equal_the_head_of_the_full_ranking_on_a_bigger_memory() -> None:
    """Skipping lines that cannot make the top k (MaxScore, lighter weights) never changes it:
    common and rare words, forms, prefixes, typos, fenced bullets, removed facts."""
    rng = random.Random(5)
    vocab = [
        "redis",
        "cache",
        "caching",
        "timeout",
        "timeouts",
        "rapid",
        "api",
        "deploy",
        "deploys",
        "deployed",
        "the",
        "a",
        "of",
    ]
    vocab += [f"zeta{i}" for i in range(30)]
    files: dict[str, bytes] = {}
    for i in range(300):
        folder = rng.choice(["services/redis", "services/api", "notes", "deploys"])
        lines = [f"# {rng.choice(vocab).title()} {i}"]
        for _ in range(rng.randint(1, 12)):
            words = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 20)))
            meta = f" [added: 2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}]" * rng.randint(0, 1)
            meta += " [status: revoked]" * (rng.random() < 0.05)
            lines.append(rng.choice(["- ", "", "* ", "```\n- "]) + words + meta)
        files[f"{folder}/f{i}.md"] = "\n".join(lines).encode()
    index = SearchIndex.build(files)
    for query in [
        "redis",
        "api deploy",
        "deploying timeout cache the",
        "zeta7 redis",
        "zeta1 zeta2 zeta3 api",
        "zeat7 cach",
        '"the cache" api',
        "+redis deploy",
        "a of the",
    ]:
        full = index.search(query, limit=10**6)
        for k in (1, 3, 20):
            assert index.search(query, limit=k) == full[:k], (query, k)
