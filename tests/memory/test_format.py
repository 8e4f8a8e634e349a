"""The Agent Memory Repo grammar: conformance examples, the decisions of SPEC-NOTES section 3."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memory import format as fmt
from tests.conftest import CONFORMANCE

AMR = CONFORMANCE / "agentmemoryrepo"


def read(rel: str) -> str:
    return (AMR / rel).read_text()


# -- every conformance example parses, with entries, metadata and links asserted --------------


def test_spec_memory_md_has_top_entry_and_index() -> None:
    """spec-3a6572ea MEMORY.md: a title, one top entry with a source, three index links."""
    doc = fmt.parse(read("spec-3a6572ea/example-MEMORY.md"))
    assert doc.title == "Memory: John"
    top = doc.top_entries()
    assert [e.text for e in top] == ["John leads the product team"]
    assert top[0].get("source") == "https://example.com/sessions/100"
    assert [e.links for e in doc.index_entries()] == [
        ("team_structure",),
        ("projects/payments",),
        ("projects/website",),
    ]
    assert [e.meta for e in doc.index_entries()] == [(), (), ()]


def test_old_spec_memory_md_parses_the_same_way() -> None:
    """spec-0f08aa17 MEMORY.md parses to the same shape (the versions differ only in prose)."""
    doc = fmt.parse(read("spec-0f08aa17/example-MEMORY.md"))
    assert doc.title == "Memory: Joe"
    assert len(doc.top_entries()) == 1
    assert doc.links() == ["team_structure", "projects/payments", "projects/website"]


def test_entries_with_two_keys() -> None:
    """`[source: …; added: …]` gives both keys, in order, and the text without the bracket."""
    for version in ("spec-0f08aa17", "spec-3a6572ea"):
        doc = fmt.parse(read(f"{version}/example-entries.md"))
        second = doc.entries[1]
        assert second.text == "Payments and website share a 2026-10-15 launch deadline"
        assert second.meta == (
            ("source", "https://example.com/sessions/102"),
            ("added", "2026-09-03"),
        )
        assert doc.entries[0].get("source") == "https://example.com/sessions/101"


def test_crosslink_entry_without_metadata() -> None:
    """An entry ending in '[[link]].' has the link and no metadata (decision 2)."""
    for version in ("spec-0f08aa17", "spec-3a6572ea"):
        (entry,) = fmt.parse(read(f"{version}/example-crosslink.md")).entries
        assert entry.links == ("team_structure",)
        assert entry.meta == ()
        assert entry.text.endswith("see [[team_structure]].")


def test_index_fragment_links_are_not_metadata() -> None:
    """`- [[projects/payments]]` ends in ']]' and is a link, never a metadata bracket."""
    doc = fmt.parse(read("readme-3a6572ea/example-MEMORY-index-fragment.md"))
    assert doc.index_span is not None
    assert [e.text for e in doc.index_entries()] == [
        "[[team_structure]]",
        "[[projects/payments]]",
        "[[projects/website]]",
        "[[swarms/slow-checkout/README]]",
    ]
    assert all(e.meta == () for e in doc.entries)


def test_sql_and_autocomplete_entries_link_non_markdown_files() -> None:
    """Links keep non-markdown extensions and resolve to that exact path (decision 9)."""
    (sql,) = fmt.parse(read("readme-0f08aa17/example-MEMORY-sql-entry.md")).entries
    assert sql.links == ("billing/count_paying_customers.sql",)
    assert fmt.link_target(sql.links[0]) == "billing/count_paying_customers.sql"
    assert sql.get("source") == "https://example.com/sessions/105"
    (auto,) = fmt.parse(read("readme-3a6572ea/example-MEMORY-autocomplete-entry.md")).entries
    assert auto.links == ("metrics/autocomplete_keep_rate.sql",)
    assert auto.text.startswith("Autocomplete is called ghost_text")


def test_swarm_readme_has_imperative_entries_as_data() -> None:
    """The swarm README's instructions are plain entries (memory is data, decision 12)."""
    doc = fmt.parse(read("readme-3a6572ea/example-swarm-README.md"))
    assert doc.title == "Swarm: why is checkout slow for 1 request in 100?"
    assert len(doc.entries) == 5
    assert doc.entries[1].links == ("swarms/slow-checkout/scripts/bench.sh",)
    assert doc.entries[0].get("source") == "https://example.com/sessions/300"


def test_findings_before() -> None:
    """Three findings, each with one source."""
    doc = fmt.parse(read("readme-3a6572ea/example-swarm-findings-before.md"))
    assert [e.get("source")[-3:] for e in doc.entries] == ["301", "302", "303"]  # type: ignore[index]


def test_multi_bracket_keeps_every_source() -> None:
    """Several trailing brackets are read in order; repeated keys keep every value (decision 3)."""
    doc = fmt.parse(read("readme-3a6572ea/example-swarm-findings-multi-bracket.md"))
    first = doc.entries[0]
    assert first.get_all("source") == [
        "https://example.com/sessions/301",
        "https://example.com/sessions/302",
        "https://example.com/sessions/304",
    ]
    assert first.text.endswith("the pool of 20 runs out")
    assert first.render().count("[") == 1  # one bracket when re-rendered


def test_nested_bullets_are_entries_with_parents() -> None:
    """An indented bullet is its own entry whose parent is the bullet above it (decision 4)."""
    doc = fmt.parse(read("readme-3a6572ea/example-swarm-questions-nested.md"))
    assert len(doc.entries) == 4
    q, a, q2, a2 = doc.entries
    assert (q.parent, a.parent, q2.parent, a2.parent) == (None, 0, None, 2)
    assert a.indent == 2 and a.text.startswith("Cache answers")


def test_skill_examples() -> None:
    """The skill's entry has only `added`; its bootstrap MEMORY.md is a title and an empty index."""
    (entry,) = fmt.parse(read("skill-197b3490/example-entry.md")).entries
    assert entry.meta == (("added", "2026-10-04"),)
    doc = fmt.parse(read("skill-197b3490/example-initial-MEMORY.md"))
    assert doc.title == "Memory" and doc.index_span is not None and doc.entries == []


def test_every_example_round_trips_byte_for_byte() -> None:
    """Rendering an unchanged file gives the same bytes, for every conformance example."""
    files = sorted(AMR.glob("*/*"))
    assert len(files) >= 20
    for f in files:
        text = f.read_text()
        assert fmt.parse(text).render() == text, f


# -- the decisions, one test each ---------------------------------------------------------------


def test_decision_1_union_of_versions() -> None:
    """Values with ';' '[' ']' are percent-escaped on render (the newest rule)."""
    line = fmt.render_entry("x", [("source", "https://e.com/a;b[c]")])
    assert line == "- x [source: https://e.com/a%3Bb%5Bc%5D]"
    entry = fmt.parse_entry(line)
    assert entry is not None and entry.get("source") == "https://e.com/a;b[c]"


def test_decision_2_link_at_end_needs_key_for_metadata() -> None:
    """A trailing [[link]] is never metadata; a bracket without 'key:' is text."""
    e = fmt.parse_entry("- see [[a/b]]")
    assert e is not None and e.meta == () and e.links == ("a/b",)
    e = fmt.parse_entry("- see [[a/b]] [added: 2026-01-01]")
    assert e is not None and e.meta == (("added", "2026-01-01"),) and e.text == "see [[a/b]]"


def test_decision_5_keys_values_and_old_urls() -> None:
    """Keys are case-insensitive and trimmed; empty values kept; raw ';' stays in an old URL."""
    e = fmt.parse_entry("- x [ Source :  https://a.com/q?a=1;b=2 ; Added: ]")
    assert e is not None
    assert e.get("source") == "https://a.com/q?a=1;b=2"
    assert e.get("added") == ""
    assert fmt.parse_entry("- x [9bad: y]").meta == ()  # type: ignore[union-attr]


def test_decision_6_text_brackets_are_not_metadata() -> None:
    """[WIP], [sic] and a markdown link at the end stay in the text."""
    for line in ("- ship it [WIP]", "- teh [sic]", "- see [docs](https://x.y)", "- a [b; c: d]"):
        e = fmt.parse_entry(line)
        assert e is not None and e.meta == (), line


def test_decision_7_markers_boxes_and_fences() -> None:
    """'*', '+', '1.' are bullets; task boxes stay in text; fenced bullets are not entries."""
    doc = fmt.parse("* a\n+ b\n1. c\n2) d\n- [ ] e\n```\n- not me\n```\n~~~\n- nor me\n~~~\n- f\n")
    assert [e.text for e in doc.entries] == ["a", "b", "c", "d", "[ ] e", "f"]


def test_decision_8_index_heading_rules() -> None:
    """'## index' in any case starts the index; it ends at the next level-2 heading."""
    doc = fmt.parse(
        "# M\n- top\n## INDEX\n- [[a]] about a [added: 2026-01-01]\n### g\n- [[b]]\n## Other\n- c\n"
    )
    assert [e.text for e in doc.index_entries()] == ["[[a]] about a", "[[b]]"]
    assert doc.index_entries()[0].get("added") == "2026-01-01"
    assert [e.text for e in doc.top_entries()] == ["top"]


def test_decision_9_link_targets() -> None:
    """No extension means .md; #heading and |alias dropped; '..', '/x' and '' are invalid."""
    assert fmt.link_target("projects/payments") == "projects/payments.md"
    assert fmt.link_target("x#part|alias") == "x.md"
    assert fmt.link_target("a/b.sql") == "a/b.sql"
    assert [fmt.link_target(x) for x in ("../x", "/etc/passwd", "", "a//b")] == [None] * 4
    assert fmt.link_for("projects/payments.md") == "projects/payments"


def test_decision_10_index_budget() -> None:
    """The MEMORY.md budget is 200 lines and 25 KB."""
    assert (fmt.INDEX_MAX_LINES, fmt.INDEX_MAX_BYTES) == (200, 25 * 1024)


def test_decision_11_our_keys() -> None:
    """Our extra keys are known; with_meta sets, replaces and removes keys in order."""
    assert {"by", "status", "verified", "scope", "removed", "reason", "evidence"} <= fmt.KNOWN_KEYS
    e = fmt.parse_entry("- x [source: s; status: tentative]")
    assert e is not None
    e2 = e.with_meta(status="active", verified="2026-11-30", source=None)
    assert e2.meta == (("status", "active"), ("verified", "2026-11-30"))


def test_all_decisions_are_written_down() -> None:
    """Each of the 14 ambiguities of SPEC-NOTES section 3 has a written decision, and so has
    what a line is (15), what a tag is (16), how a reminder is written (17), where old archive
    months go (18), where forgotten.md's old records go (19) and how a text's own trailing
    bracket is written (20)."""
    assert set(fmt.DECISIONS) == set(range(1, 21))


# -- editing ----------------------------------------------------------------------------------


def test_editing_one_entry_changes_only_that_line() -> None:
    """Replacing an entry's line leaves every other byte, CRLF endings included, untouched."""
    text = "# T\r\n\r\n- a [added: 2026-01-01]\r\n- b\r\nprose\r\n"
    doc = fmt.parse(text)
    b = doc.entries[1]
    new = fmt.replace_line(text, b.line, b.with_meta(status="active").render())
    assert new == "# T\r\n\r\n- a [added: 2026-01-01]\r\n- b [status: active]\r\nprose\r\n"


def test_normalise_ignores_case_punctuation_and_metadata() -> None:
    """Two spellings of one fact normalise to the same key."""
    assert fmt.normalise("- The batch alert is EXPECTED! [added: 2026-01-01]") == fmt.normalise(
        "the batch alert is expected"
    )


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parser_never_raises_and_round_trips(text: str) -> None:
    """Any text parses without raising and renders back to the same string."""
    doc = fmt.parse(text)
    assert doc.render() == text
    for e in doc.entries:
        fmt.parse_entry(e.render())
    doc.links()
    fmt.normalise(text)


# Metadata values as anyone may write them: any character, with the escape codes, '%' next to
# them, the characters that end a bracket or a line, and spaces often enough to matter.
_TRICKY = ["%", ";", "[", "]", "\n", "\r", " ", "\t", ":", ",", "%3B", "%3b", "%25", "%5D", "%0A"]
_VALUES = st.lists(
    st.one_of(st.sampled_from(_TRICKY), st.characters(blacklist_categories=("Cs",))), max_size=12
).map("".join)


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1).filter(
        lambda s: s.strip() != ""
    ),
    st.lists(
        st.tuples(st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True), _VALUES), max_size=3
    ),
)
def test_rendered_metadata_parses_back(text: str, meta: list[tuple[str, str]]) -> None:
    """Decision 5's bijection: what render_entry writes, the parser reads back as the very values
    written (edge whitespace aside, which a value never has), in a file or on its own; rendering
    what was read gives the same bytes; every value is escaped inside one line."""
    line = fmt.render_entry(text, meta)
    assert "\n" not in line and "\r" not in line
    want = [(k, v.strip()) for k, v in meta]
    for e in (fmt.parse_entry(line), fmt.parse(f"# T\n\n{line}\n- next\n").entries[0]):
        assert e is not None
        assert list(e.meta[len(e.meta) - len(meta) :]) == want
        assert e.render() == line
    for _, value in want:
        assert fmt.unescape_value(fmt.escape_value(value)) == value


@given(_VALUES)
def test_escaping_is_one_to_one(value: str) -> None:
    """Two different values are never written alike, and a written value reads back as itself."""
    value = value.strip()
    written = fmt.escape_value(value)
    assert not set(written) & set(";[]\n\r")
    assert fmt.unescape_value(written) == value
    assert fmt.escape_value(fmt.unescape_value(written)) == written


def test_escaping_keeps_urls_readable_and_literal_codes_literal() -> None:
    """A URL's own %20 is written as it is; a literal %3B (which once read back as ';') is
    written %253B; old files' %3B, %5B, %5D, in either case, read as ';', '[', ']'."""
    assert fmt.escape_value("https://e.com/a%20b?q=1;2") == "https://e.com/a%20b?q=1%3B2"
    assert fmt.escape_value("https://e.com/a%3Bb") == "https://e.com/a%253Bb"
    e = fmt.parse_entry("- x [source: https://e.com/a%3bb%5Bc%5d%20d; reason: 100%]")
    assert e is not None
    assert e.get("source") == "https://e.com/a;b[c]%20d" and e.get("reason") == "100%"


def test_decision_15_a_line_ends_at_newline_only() -> None:
    """A form feed, \\x0b, \\x1c-\\x1e, \\x85, U+2028 or U+2029 inside an entry keeps it one line
    (str.splitlines would cut it): entries sit on the lines git numbers, and render unchanged."""
    text = "# T\n\n- a\x0cb [source: s]\n- c\x0b\x1c\x1d\x1e\x85\u2028\u2029d\r\n- e\n"
    doc = fmt.parse(text)
    assert [(e.line, e.text) for e in doc.entries] == [
        (2, "a\x0cb"),
        (3, "c\x0b\x1c\x1d\x1e\x85\u2028\u2029d"),
        (4, "e"),
    ]
    assert doc.render() == text
    assert fmt.replace_line(text, 4, "- f") == text.replace("- e\n", "- f\n")
