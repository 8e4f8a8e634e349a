"""Search in all-words mode (`all_words=True`, `hippo search --all`): words and quoted phrases,
case-insensitive, AND across line and path/title, ranked. The default ranked mode:
tests/memory/test_search_ranked.py."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.search import Hit, SearchIndex, fold, matches_entry, parse_query
from tests.conftest import CONFORMANCE

SRC = "source: https://acme.slack.com/archives/C1/p1"


def tree(**files: str) -> dict[str, bytes]:
    """A tree from keyword args: `services__checkout_api` -> `services/checkout-api.md`."""
    return {k.replace("__", "/").replace("_", "-") + ".md": v.encode() for k, v in files.items()}


def paths(hits: list[Hit]) -> list[tuple[str, int]]:
    return [(h.path, h.line) for h in hits]


def test_word_hit_reports_path_line_text_and_metadata() -> None:
    """A hit names the file, the 1-based line, the entry text without metadata, and the metadata."""
    index = SearchIndex.build(
        tree(
            services__checkout_api="# Checkout API\n\n"
            f"- 504s come from the vendor sandbox [{SRC}; added: 2026-10-14; by: U1]\n"
        )
    )
    [hit] = index.search("sandbox", all_words=True)
    assert hit.path == "services/checkout-api.md"
    assert hit.line == 3
    assert hit.text == "504s come from the vendor sandbox"
    assert hit.meta == {
        "source": "https://acme.slack.com/archives/C1/p1",
        "added": "2026-10-14",
        "by": "U1",
    }
    assert hit.entry and hit.score > 0
    assert hit.as_dict()["line"] == 3


def test_search_is_case_insensitive_both_ways() -> None:
    """Upper-case queries find lower-case text and the other way round, including non-ASCII."""
    index = SearchIndex.build(tree(a="# A\n- The VENDOR sandbox\n- Ärger mit Straße\n"))
    assert paths(index.search("vendor", all_words=True)) == [("a.md", 2)]
    assert paths(index.search("Vendor SANDBOX", all_words=True)) == [("a.md", 2)]
    assert paths(index.search("ärger", all_words=True)) == [("a.md", 3)]
    assert index.search("ÄRGER", all_words=True)[0].text == "Ärger mit Straße"


def test_every_word_must_match_in_the_line_or_its_path() -> None:
    """Words are ANDed: a line missing one of them, with no help from the path, is not a hit."""
    index = SearchIndex.build(
        tree(
            notes="# Notes\n- redis timeout is 5s\n- redis is fine\n- timeout on postgres\n",
            services__redis="# Cache\n- timeout is 2s\n- nothing here\n",
        )
    )
    hits = paths(index.search("redis timeout", all_words=True))
    assert set(hits) == {("notes.md", 2), ("services/redis.md", 2)}


def test_phrase_must_occur_contiguously() -> None:
    """A quoted phrase matches only the words side by side, in order."""
    index = SearchIndex.build(
        tree(a="# A\n- vendor sandbox is slow\n- sandbox of the vendor\n- the vendor  sandbox\n")
    )
    assert paths(index.search('"vendor sandbox"', all_words=True)) == [("a.md", 2)]
    assert paths(index.search('"VENDOR SANDBOX" slow', all_words=True)) == [("a.md", 2)]
    assert {h.line for h in index.search("vendor sandbox", all_words=True)} == {2, 3, 4}


def test_unclosed_quote_runs_to_the_end() -> None:
    """`"vendor sandbox` (no closing quote) is the phrase `vendor sandbox`."""
    assert parse_query('redis "vendor  sandbox') == parse_query('redis "vendor sandbox"')
    assert [t.phrase for t in parse_query('redis "vendor sandbox"')] == [False, True]
    assert parse_query('"" " "  ') == []


def test_phrase_hits_rank_above_scattered_words() -> None:
    """The words side by side (as a phrase) outrank the same words far apart."""
    index = SearchIndex.build(
        tree(
            a="# A\n- the vendor team said the sandbox is down\n",
            b="# B\n- the vendor sandbox is down today\n",
        )
    )
    assert [h.path for h in index.search("vendor sandbox", all_words=True)] == ["b.md", "a.md"]


def test_fewer_words_between_matches_rank_higher() -> None:
    """Of two lines with both words, the one where they are closer ranks first."""
    index = SearchIndex.build(
        tree(a="# A\n- redis one two three four five six timeout\n- redis then timeout here ok\n")
    )
    assert [h.line for h in index.search("timeout redis", all_words=True)] == [3, 2]


def test_shorter_entries_rank_higher() -> None:
    """Same match, a shorter entry text ranks first (metadata does not count as length)."""
    long_text = "redis " + " ".join(["filler"] * 40)
    index = SearchIndex.build(
        tree(a=f"# A\n- {long_text}\n- redis is the cache [{SRC}; {SRC.replace('p1', 'p2')}]\n")
    )
    assert [h.line for h in index.search("redis", all_words=True)] == [3, 2]


def test_newer_added_breaks_ties() -> None:
    """Two hits with the same score: the newer `added` date comes first."""
    index = SearchIndex.build(
        tree(
            a="# A\n- redis is slow [added: 2026-01-02]\n",
            b="# B\n- redis is slow [added: 2026-05-01]\n",
            c="# C\n- redis is slow [added: 2025-12-31]\n",
        )
    )
    hits = index.search("redis", all_words=True)
    assert hits[0].score == hits[1].score == hits[2].score
    assert [h.path for h in hits] == ["b.md", "a.md", "c.md"]


def test_whole_word_matches_rank_above_substrings() -> None:
    """`api` as a word outranks `api` inside `rapid`."""
    index = SearchIndex.build(tree(a="# A\n- rapid growth here\n- the api grows\n"))
    assert [h.line for h in index.search("api", all_words=True)] == [3, 2]


def test_path_hit_counts_for_and_and_ranks_higher() -> None:
    """A word found only in the path still satisfies the AND, and path matches rank higher."""
    index = SearchIndex.build(
        tree(
            services__checkout_api="# Checkout API\n- deploys take 5 minutes\n",
            services__billing="# Billing\n- checkout deploys need a freeze\n",
            misc="# Misc\n- deploys are on Tuesday\n",
        )
    )
    hits = index.search("checkout deploys", all_words=True)
    assert {h.path for h in hits} == {"services/checkout-api.md", "services/billing.md"}
    same = SearchIndex.build(
        tree(misc="# M\n- deploys take 5 min\n", deploys="# D\n- deploys take 5 min\n")
    )
    assert paths(same.search("deploys", all_words=True)) == [
        ("deploys.md", 2),
        ("misc.md", 2),
        ("deploys.md", 1),
    ]


def test_path_only_query_returns_the_title_line() -> None:
    """A query matching only a file's path gives that file's title line as the hit."""
    index = SearchIndex.build(tree(services__checkout_api="\n# Payments front door\n- a\n"))
    [hit] = index.search("checkout-api", all_words=True)
    assert (hit.path, hit.line, hit.text, hit.entry) == (
        "services/checkout-api.md",
        2,
        "# Payments front door",
        False,
    )


def test_title_words_count_like_path_words() -> None:
    """A word in the file's title satisfies the AND for the file's entries."""
    index = SearchIndex.build(tree(x="# Redis cluster\n- timeout is 2s\n- other\n"))
    assert paths(index.search("redis timeout", all_words=True)) == [("x.md", 2)]


def test_entries_rank_above_prose() -> None:
    """A bullet entry outranks a prose line with the same words; prose still hits."""
    index = SearchIndex.build(tree(a="# A\n\nredis is the cache here.\n\n- redis is the cache\n"))
    hits = index.search("redis cache", all_words=True)
    assert [(h.line, h.entry) for h in hits] == [(5, True), (3, False)]
    assert hits[1].meta == {}


def test_limit_caps_the_number_of_hits() -> None:
    """`limit` keeps the best n; zero or less returns nothing."""
    body = "".join(f"- redis fact {i}\n" for i in range(50))
    index = SearchIndex.build(tree(a="# A\n" + body))
    assert len(index.search("redis", all_words=True)) == 20
    assert len(index.search("redis", limit=5, all_words=True)) == 5
    assert len(index.search("redis", limit=500, all_words=True)) == 50
    assert index.search("redis", limit=0, all_words=True) == []


def test_empty_and_unmatched_queries_return_nothing() -> None:
    """Blank queries and queries with no match return an empty list."""
    index = SearchIndex.build(tree(a="# A\n- redis\n"))
    assert index.search("", all_words=True) == []
    assert index.search('   ""  ', all_words=True) == []
    assert index.search("postgres", all_words=True) == []


def test_binary_and_non_utf8_files_are_skipped() -> None:
    """Files with NUL bytes or invalid UTF-8 are not indexed; the rest still are."""
    index = SearchIndex.build(
        {
            "logo.png": b"\x89PNG\r\n\x1a\n\0\0redis",
            "latin1.md": "- caf\xe9 redis\n".encode("latin-1"),
            "ok.md": b"# Ok\n- redis\n",
        }
    )
    assert index.paths == ["ok.md"]
    assert len(index) == 1
    assert paths(index.search("redis", all_words=True)) == [("ok.md", 2)]


def test_non_markdown_lines_are_prose_hits() -> None:
    """Lines of other text files (JSONL, SQL) hit as prose, never as entries; the archive is
    left out unless asked for."""
    tree = {"archive/2026-10-01.jsonl": b'{"summary": "redis failover"}\n', "q.sql": b"- redis\n"}
    tree["notes/log.jsonl"] = b'{"summary": "redis failover"}\n'
    hits = SearchIndex.build(tree).search("redis", all_words=True)
    assert {(h.path, h.entry) for h in hits} == {("notes/log.jsonl", False), ("q.sql", False)}
    archived = SearchIndex.build(tree, archive=True).search("redis", all_words=True)
    assert [(h.path, h.entry) for h in archived] == [("archive/2026-10-01.jsonl", False)]


def test_bullets_inside_code_fences_are_not_entries() -> None:
    """A bullet-looking line inside ``` is prose; the same line outside is an entry."""
    index = SearchIndex.build(tree(a="# A\n```\n- redis in code [added: 2026-01-01]\n```\n"))
    [hit] = index.search("redis", all_words=True)
    assert (hit.line, hit.entry, hit.meta) == (3, False, {})


def test_case_folding_that_changes_length_keeps_lines_right() -> None:
    """Characters whose lower case is longer (İ) do not shift hits onto the wrong line."""
    index = SearchIndex.build(tree(a="# İstanbul İİİ\n- İzmir office\n- redis here\n"))
    assert paths(index.search("redis", all_words=True)) == [("a.md", 3)]
    assert index.search("office", all_words=True)[0].text == "İzmir office"
    assert fold("İx") == "İx" and fold("ÄB") == "äb"


def test_crlf_files_give_clean_text() -> None:
    """Windows line endings do not leak into the hit text."""
    index = SearchIndex.build({"a.md": b"# A\r\n- redis here\r\n- other\r\n"})
    [hit] = index.search("redis", all_words=True)
    assert (hit.line, hit.text) == (2, "redis here")


def test_conformance_examples_are_searchable() -> None:
    """Every Agent Memory Repo example is indexed; a phrase from the spec finds its entry."""
    root = CONFORMANCE / "agentmemoryrepo"
    files = {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    index = SearchIndex.build(files)
    assert len(index) == len(files)
    hits = index.search('"billing launch" john', all_words=True)
    assert paths(hits) == [("spec-3a6572ea/example-entries.md", 1)]
    assert hits[0].text == "John coordinates the billing launch"
    assert hits[0].meta == {"source": "https://example.com/sessions/101"}
    assert len(index.search('"billing launch"', all_words=True)) == 4


def test_a_bigger_tree_finds_the_rare_line() -> None:
    """Across many files, a rare term is found at the right path and line, common ones capped."""
    files = {
        f"topics/t{i:04d}.md": (
            f"# Topic {i}\n" + "".join(f"- deploy note {i}-{j}\n" for j in range(10))
        ).encode()
        for i in range(500)
    }
    files["topics/t0250.md"] += b"- the zebra migration finished\n"
    index = SearchIndex.build(files)
    assert paths(index.search("ZEBRA migration", all_words=True)) == [("topics/t0250.md", 12)]
    assert len(index.search("deploy", all_words=True)) == 20
    assert len(index.search("deploy", limit=10_000, all_words=True)) == 5000


def test_matches_entry_is_and_of_words_and_phrases() -> None:
    """`matches_entry` is the same matching, for one entry text: every term, any case."""
    assert matches_entry("Vendor sandbox", "504s from the vendor's SANDBOX")
    assert matches_entry('"vendor sandbox"', "the Vendor Sandbox is slow")
    assert not matches_entry('"vendor sandbox"', "sandbox of the vendor")
    assert not matches_entry("redis postgres", "redis only")


def test_matches_entry_with_empty_query_matches_nothing() -> None:
    """An empty query never matches, so forgetting "" removes nothing."""
    assert not matches_entry("", "anything")
    assert not matches_entry('  ""  ', "anything")


INDEX = SearchIndex.build(
    tree(
        a='# A "quoted" title\n- redis [added: 2026-01-01]\n- [[b]] link\n',
        b="# B\n```\n- fenced\n",
        c="- ünïcödé İ ß ﬁ\n\n",
    )
)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.integers(min_value=-2, max_value=50))
def test_search_never_raises(query: str, limit: int) -> None:
    """Any query text and limit gives a list of hits, never an exception."""
    hits = INDEX.search(query, limit, all_words=True)
    assert len(hits) <= max(limit, 0)
    assert all(h.line >= 1 for h in hits)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text())
def test_matches_entry_never_raises(query: str, text: str) -> None:
    """`matches_entry` accepts any text and answers a bool."""
    assert isinstance(matches_entry(query, text), bool)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters='"')), st.text())
def test_an_entry_holding_the_query_matches_it(query: str, text: str) -> None:
    """Any text followed by the query itself matches it, unless the query has no words."""
    assert matches_entry(query, f"{text} {query}") == bool(parse_query(query))


def test_top_hits_equal_the_head_of_the_full_ranking() -> None:
    """Skipping lines that cannot make the top k never changes the top k (same as ranking all)."""
    rng = random.Random(5)
    vocab = ["redis", "cache", "timeout", "rapid", "api", "deploy", "deploys", "the", "a", "of"]
    files: dict[str, bytes] = {}
    for i in range(300):
        folder = rng.choice(["services/redis", "services/api", "notes", "deploys"])
        lines = [f"# {rng.choice(vocab).title()} {i}"]
        for _ in range(rng.randint(1, 12)):
            words = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 30)))
            meta = f" [added: 2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}]" * rng.randint(0, 1)
            lines.append(rng.choice(["- ", "", "* "]) + words + meta)
        files[f"{folder}/f{i}.md"] = "\n".join(lines).encode()
    index = SearchIndex.build(files)
    for query in ["redis", "api", "deploy", "redis cache", '"the cache"', "deploys timeout", "a"]:
        full = index.search(query, limit=10**6, all_words=True)
        for k in (1, 3, 20):
            top = index.search(query, limit=k, all_words=True)
            assert [(h.score, h.path, h.line) for h in top] == [
                (h.score, h.path, h.line) for h in full[:k]
            ], (query, k)


def test_an_entry_on_the_very_first_line_is_an_entry() -> None:
    """A bullet at the start of the first file (offset 0 of the index) is still an entry."""
    index = SearchIndex.build(
        {"a.md": b"- redis first [added: 2026-01-01]\n", "b.txt": b"- redis\n"}
    )
    assert [(h.path, h.entry, h.meta) for h in index.search("redis", all_words=True)] == [
        ("a.md", True, {"added": "2026-01-01"}),
        ("b.txt", False, {}),
    ]


def test_forgotten_and_revoked_facts_rank_after_live_ones() -> None:
    """Tombstones in forgotten.md and `status: revoked` entries still hit, but after live facts."""
    index = SearchIndex.build(
        {
            "forgotten.md": b"# Forgotten\n- redis is the cache [removed: 2026-10-01; by: U1]\n",
            "lessons.md": b"# Lessons\n- redis is the cache [status: Revoked]\n",
            "services/x.md": b"# X\n- redis is the cache, mostly, we think, in production\n",
        }
    )
    hits = index.search("redis cache", all_words=True)
    assert [h.path for h in hits] == ["services/x.md", "forgotten.md", "lessons.md"]
    assert hits[2].meta == {"status": "Revoked"}


def reference_hits(files: dict[str, bytes], query: str) -> set[tuple[str, int]]:
    """The matching rule, spelled out naively: every term in the line or in path + title, and at
    least one term in the line itself unless it is the title line."""
    terms = [t.text.decode() for t in parse_query(query)]
    out: set[tuple[str, int]] = set()
    if not terms:
        return out
    for path, raw in files.items():
        lines = raw.decode().split("\n")
        title_no = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
        context = f"{fold(path)} {fold(lines[title_no])}"
        for i, line in enumerate(lines):
            low = fold(line)
            if not all(t in low or t in context for t in terms):
                continue
            if any(t in low for t in terms) or i == title_no:
                out.add((path, i + 1))
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a.md", "Ab/b.md", "c.txt", "d.md", "İ.md"]),
        st.text(alphabet="abcAB -#[]:\n\r\tİÄä`*1.", max_size=80).map(str.encode),
        min_size=1,
    ),
    st.text(alphabet='abBİä c"', min_size=1, max_size=8),
)
def test_hits_are_exactly_the_lines_the_rule_selects(files: dict[str, bytes], query: str) -> None:
    """With no limit, the hits are exactly the lines the matching rule selects, each once."""
    hits = SearchIndex.build(files).search(query, limit=10**6, all_words=True)
    assert len(hits) == len(set(paths(hits)))
    assert set(paths(hits)) == reference_hits(files, query)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab c-[]:\n", max_size=200), min_size=1, max_size=8),
    st.text(alphabet='ab c"', min_size=1, max_size=6),
    st.integers(min_value=1, max_value=4),
)
def test_any_top_k_is_the_head_of_the_full_ranking(texts: list[str], query: str, k: int) -> None:
    """For any files and query, the top k equal the first k of the unlimited ranking."""
    index = SearchIndex.build({f"f{i}.md": t.encode() for i, t in enumerate(texts)})
    full = index.search(query, limit=10**6, all_words=True)
    assert index.search(query, limit=k, all_words=True) == full[:k]


def test_thousands_of_partial_matches_still_rank_exactly() -> None:
    """With thousands of lines in reach, whole-word lines are looked up and the top k is exact,
    whether they are most of the index or a small share of it."""
    body = "".join(f"- rapid deploy note {i}\n" for i in range(3000))
    files = {
        "a.md": f"# A\n{body}".encode(),
        "b.md": b"# B\n- the api is slow today, deploy note\n- api\n",
    }
    filler = "".join(f"- filler {i}\n" for i in range(40_000)).encode()
    for index in (SearchIndex.build(files), SearchIndex.build(files | {"c.md": filler})):
        for query, k in [("api", 3), ("api", 25), ("deploy note", 5), ("ap", 4)]:
            assert (
                index.search(query, limit=k, all_words=True)
                == index.search(query, limit=10**6, all_words=True)[:k]
            )
        assert paths(index.search("api", limit=2, all_words=True)) == [("b.md", 3), ("b.md", 2)]


def test_empty_trees_and_files_are_fine() -> None:
    """An empty tree finds nothing; an empty file still hits by its path, shown by its path."""
    assert SearchIndex.build({}).search("x", all_words=True) == []
    [hit] = SearchIndex.build({"notes/redis.md": b""}).search("redis", all_words=True)
    assert (hit.path, hit.line, hit.text, hit.entry) == (
        "notes/redis.md",
        1,
        "notes/redis.md",
        False,
    )
