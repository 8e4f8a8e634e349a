"""Tags (issue 29 item 4): the `tags:` key's spelling rules (decision 16), lint's `bad-tag`,
and the key that makes near-duplicate tags one tag."""

from __future__ import annotations

import pytest

import memory.format.tags as tags
from memory import format as fmt
from memory.format.lint import lint


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Deploy", "deploys"),
        ("on_call", "On Call"),
        ("on-call", "on-calls"),
        ("policies", "policy"),
        ("caches", "cache"),
        ("boxes", "box"),
        ("Release-Notes", "release_note"),
    ],
)
def test_near_duplicates_share_a_key(a: str, b: str) -> None:
    assert tags.key(a) == tags.key(b)


@pytest.mark.parametrize(("a", "b"), [("deploy", "deployment"), ("k8s", "k8"), ("bus", "bu")])
def test_different_tags_keep_different_keys(a: str, b: str) -> None:
    assert tags.key(a) != tags.key(b)


def test_an_entry_s_tags_add_up_over_repeated_keys() -> None:
    entry = fmt.parse_entry("- fact [tags: deploy, Billing; source: s; tags: billing, on call]")
    assert entry is not None
    assert tags.of(entry) == ["deploy", "Billing", "on call"]
    assert tags.join(["deploy", "Deploys", " billing "]) == "deploy, billing"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("deploy,, billing", "empty tag"),
        ("deploy, bill$ing", "is not a tag"),
        ("a--b", "is not a tag"),
        ("x" * 41, "at most 40"),
        (", ".join(f"t{i}" for i in range(21)), "at most 20"),
    ],
)
def test_lint_reports_a_bad_tag(value: str, said: str) -> None:
    tree = {"MEMORY.md": b"# Memory\n", "t.md": f"# t\n\n- fact [tags: {value}]\n".encode()}
    (problem,) = lint(tree)
    assert (problem.code, problem.line) == ("bad-tag", 3) and said in problem.message


def test_lint_accepts_good_tags() -> None:
    good = "deploy, on call, k8s, release-notes, v2.1, team/billing, Überweisung"
    tree = {"MEMORY.md": b"# Memory\n", "t.md": f"# t\n\n- fact [tags: {good}]\n".encode()}
    assert lint(tree) == []
