"""Lint: each check reports what it should, where it should, and stays quiet on good input."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.format import DECISIONS, INDEX_MAX_BYTES, INDEX_MAX_LINES
from memory.format.lint import Problem, lint
from tests.conftest import CONFORMANCE

GOOD_INDEX = (
    b"# Memory\n\n- We deploy on Tuesdays [added: 2026-10-01]\n\n## Index\n- [[services/api]]\n"
)


def good(**extra: bytes) -> dict[str, bytes]:
    """A clean tree plus `extra` files."""
    base = {
        "MEMORY.md": GOOD_INDEX,
        "services/api.md": b"# API\n- 504s come from the sandbox [source: https://x/p1; "
        b"added: 2026-10-14; by: U1; status: active; verified: 2026-11-01]\n",
    }
    return base | extra


def codes(problems: list[Problem]) -> list[tuple[str, int, str]]:
    return [(p.path, p.line, p.code) for p in problems]


def test_a_clean_tree_has_no_problems() -> None:
    """A tree with MEMORY.md, valid links and well-formed metadata lints clean."""
    assert lint(good()) == []


def test_missing_memory_md_is_reported() -> None:
    """No MEMORY.md is a problem (decision 1: the spec's union makes it required)."""
    assert "MEMORY.md" in DECISIONS[1]
    tree = good()
    del tree["MEMORY.md"]
    assert codes(lint(tree)) == [("MEMORY.md", 0, "missing-index")]


def test_memory_md_over_the_line_budget() -> None:
    """More than 200 lines in MEMORY.md is reported; exactly 200 is fine."""
    at_limit = b"# Memory\n" + b"- fact\n" * (INDEX_MAX_LINES - 1)
    assert lint(good(**{"MEMORY.md": at_limit})) == []
    over = at_limit + b"- one more\n"
    [problem] = lint(good(**{"MEMORY.md": over}))
    assert (problem.code, problem.line) == ("index-too-long", 0)
    assert "201 lines" in problem.message


def test_memory_md_over_the_byte_budget() -> None:
    """More than 25 KB in MEMORY.md is reported, even in few lines."""
    fat = b"# Memory\n- " + b"x" * INDEX_MAX_BYTES + b"\n"
    assert codes(lint(good(**{"MEMORY.md": fat}))) == [("MEMORY.md", 0, "index-too-large")]
    exact = b"# Memory\n- " + b"x" * (INDEX_MAX_BYTES - 12) + b"\n"
    assert len(exact) == INDEX_MAX_BYTES
    assert lint(good(**{"MEMORY.md": exact})) == []


def test_broken_link_names_the_missing_target() -> None:
    """A [[link]] to a missing file is reported at its line, with the resolved path."""
    tree = good(**{"notes.md": b"# Notes\n\n- see [[services/gone]] and [[services/api]]\n"})
    [problem] = lint(tree)
    assert (problem.path, problem.line, problem.code) == ("notes.md", 3, "broken-link")
    assert "services/gone.md" in problem.message


def test_links_with_extensions_headings_and_aliases_resolve() -> None:
    """[[q.sql]], [[x#heading]] and [[x|alias]] resolve to existing files (decision 9)."""
    tree = good(
        **{
            "queries/q.sql": b"select 1;\n",
            "notes.md": b"- [[queries/q.sql]] [[services/api#Deploys]] [[services/api|the API]]\n",
        }
    )
    assert lint(tree) == []


def test_invalid_link_syntax_is_reported() -> None:
    """'..', a leading '/' and empty targets are invalid links."""
    tree = good(**{"notes.md": b"- [[../etc/passwd]]\n- [[/abs]]\n- [[]]\n- [[ok|]]\n"})
    assert codes(lint(tree)) == [
        ("notes.md", 1, "invalid-link"),
        ("notes.md", 2, "invalid-link"),
        ("notes.md", 3, "invalid-link"),
        ("notes.md", 4, "broken-link"),
    ]


def test_links_inside_code_fences_are_ignored() -> None:
    """[[...]] inside ``` is code, not a link."""
    tree = good(**{"notes.md": b"# N\n```\n- [[nowhere]]\n```\n"})
    assert lint(tree) == []


def test_secret_is_reported_by_kind_never_echoed() -> None:
    """A credential is reported with its kind and line; the secret itself is not in the output."""
    token = "xoxb-" + "1234567890-abcdefghijkl"
    tree = good(**{"notes.md": f"# N\n- the bot token is {token}\n".encode()})
    [problem] = lint(tree)
    assert (problem.path, problem.line, problem.code) == ("notes.md", 2, "secret")
    assert "Slack token" in problem.message
    assert token not in str(problem) and token not in json.dumps(problem.as_dict())


def test_secrets_are_found_in_any_text_file() -> None:
    """Archives and other text files are scanned too, not only markdown."""
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    tree = good(**{"archive/2026-10-01.jsonl": json.dumps({"text": key}).encode() + b"\n"})
    [problem] = lint(tree)
    assert problem.code == "secret" and "AWS access key id" in problem.message


def test_malformed_metadata_key_is_reported() -> None:
    """A trailing bracket of `key: value` parts with a malformed key is reported; [WIP] is not."""
    tree = good(
        **{
            "notes.md": b"# N\n"
            b"- fact one [Source URL: https://x/p1; added: 2026-10-01]\n"
            b"- fact two [2nd: x]\n"
            b"- work in progress [WIP]\n"
            b"- a markdown [link](https://x)\n"
            b"- see [[services/api]]\n"
            b"- odd [note: ok] [sic]\n"
        }
    )
    problems = lint(tree)
    assert codes(problems) == [("notes.md", 2, "bad-key"), ("notes.md", 3, "bad-key")]
    assert "'Source URL'" in problems[0].message


def test_dates_must_be_yyyy_mm_dd() -> None:
    """`added`, `verified` and `removed` must be real YYYY-MM-DD dates."""
    tree = good(
        **{
            "notes.md": b"- a [added: yesterday]\n- b [verified: 2026-13-01]\n"
            b"- c [removed: 2026-1-5]\n- d [added: 2026-02-28; Verified: 2026-03-01]\n"
        }
    )
    assert codes(lint(tree)) == [
        ("notes.md", 1, "bad-date"),
        ("notes.md", 2, "bad-date"),
        ("notes.md", 3, "bad-date"),
    ]


def test_status_must_be_known() -> None:
    """`status` is tentative, active or revoked."""
    tree = good(
        **{
            "notes.md": b"- a [status: maybe]\n- b [status: tentative]\n"
            b"- c [status: revoked]\n- d [status: Active]\n"
        }
    )
    [problem] = lint(tree)
    assert (problem.line, problem.code) == (1, "bad-status")
    assert "active | revoked | tentative" in problem.message


def test_kind_must_be_known() -> None:
    """`kind` (what an agent learned, memory/trust/agent_gate.py) is pattern, pitfall, win, stack-note or fact."""
    tree = good(
        **{"notes.md": b"- a [kind: gossip]\n- b [kind: stack-note]\n- c [kind: Pitfall]\n"}
    )
    [problem] = lint(tree)
    assert (problem.line, problem.code) == (1, "bad-kind")


def test_empty_values_are_reported() -> None:
    """A key with nothing after the colon is reported."""
    tree = good(**{"notes.md": b"- a [source: ; added: 2026-01-01]\n- b [by: U1]\n"})
    assert codes(lint(tree)) == [("notes.md", 1, "empty-value")]


def test_unknown_well_formed_keys_are_fine() -> None:
    """Keys are open: an unknown but well-formed key is not a problem."""
    assert lint(good(**{"notes.md": b"- a [ticket: PAY-1; owner_team: pay]\n"})) == []


def test_dream_state_must_be_json() -> None:
    """.dream/state.json must parse as JSON; the line of the error is given."""
    ok = json.dumps({"lastRun": "2026-11-29", "lastCommit": "abc"}).encode()
    assert lint(good(**{".dream/state.json": ok})) == []
    [problem] = lint(good(**{".dream/state.json": b'{\n  "lastRun": \n}\n'}))
    assert (problem.path, problem.line, problem.code) == (".dream/state.json", 3, "bad-json")


def test_archive_lines_must_be_json() -> None:
    """Every non-blank line of archive/*.jsonl must be JSON; blank lines are fine."""
    tree = good(**{"archive/2026-10-01.jsonl": b'{"a": 1}\n\n{"b": 2\n[1, 2]\nnope\n'})
    assert codes(lint(tree)) == [
        ("archive/2026-10-01.jsonl", 3, "bad-jsonl"),
        ("archive/2026-10-01.jsonl", 5, "bad-jsonl"),
    ]


def test_json_rules_apply_only_to_their_paths() -> None:
    """Other .json/.jsonl files are not checked as state or archive."""
    assert lint(good(**{"data/x.jsonl": b"not json\n", "y.json": b"{"})) == []


def test_non_utf8_markdown_is_reported_and_binary_skipped() -> None:
    """A markdown file that is not UTF-8 is reported; binary files are skipped silently."""
    tree = good(**{"bad.md": "- caf\xe9\n".encode("latin-1"), "logo.png": b"\x89PNG\0\0\xff"})
    assert codes(lint(tree)) == [("bad.md", 0, "not-utf8")]


def test_problems_are_sorted_and_printable() -> None:
    """Problems come sorted by path and line, and print as path:line: code: message."""
    tree = good(**{"b.md": b"- x [added: no]\n", "a.md": b"- [[nope]]\n"})
    problems = lint(tree)
    assert [p.path for p in problems] == ["a.md", "b.md"]
    assert str(problems[0]).startswith("a.md:1: broken-link: [[nope]]")


def test_conformance_memory_example_reports_its_missing_links() -> None:
    """The spec's MEMORY.md example, alone in a tree, lints to exactly its three broken links."""
    example = (CONFORMANCE / "agentmemoryrepo/spec-3a6572ea/example-MEMORY.md").read_bytes()
    problems = lint({"MEMORY.md": example})
    assert [p.code for p in problems] == ["broken-link"] * 3
    targets = {"team_structure.md", "projects/payments.md", "projects/website.md"}
    assert all(any(t in p.message for t in targets) for p in problems)
    complete = {"MEMORY.md": example} | {t: b"# x\n" for t in targets}
    assert lint(complete) == []


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["MEMORY.md", "a.md", ".dream/state.json"]), st.binary()))
def test_lint_never_raises(tree: dict[str, bytes]) -> None:
    """Any bytes in any file give a list of problems, never an exception."""
    assert isinstance(lint(tree), list)
