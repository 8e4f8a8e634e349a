"""Pitfalls: what a lesson records for the check, and how a diff's added lines are matched."""

from __future__ import annotations

from memory import format as fmt
from memory.lessons import pitfalls
from memory.lessons import planner as lessons
from memory.lessons import pull_requests as po
from tests.memory.lessons.test_lessons import apply, only_entry, pr

PATCH = (
    "@@ -1,3 +1,6 @@\n"
    ' """Orders."""\n'
    "+from unittest import mock\n"
    " \n"
    "-def old():\n"
    "+def test_a():\n"
    '+    with mock.patch("x.y") as y:\n'
    "+        assert y\n"
    "\\ No newline at end of file\n"
    "@@ -20,2 +23,3 @@ def later():\n"
    "     pass\n"
    "+    gateway = unittest.mock.Mock()\n"
)


def test_added_lines_carry_their_line_in_the_new_file() -> None:
    """Hunk headers set the count; context and added lines advance it, removed lines do not."""
    lines = pitfalls.added_lines("tests/unit/test_a.py", PATCH)
    assert [(a.line, a.text.strip()) for a in lines] == [
        (2, "from unittest import mock"),
        (4, "def test_a():"),
        (5, 'with mock.patch("x.y") as y:'),
        (6, "assert y"),
        (24, "gateway = unittest.mock.Mock()"),
    ]
    assert pitfalls.added_lines("x.bin", None) == []


def test_needles_are_what_people_removed_and_did_not_put_back() -> None:
    """Names on removed lines, minus names the added lines use, keywords and plain words; a
    longer name under a shorter needle is redundant."""
    removed = ["import mock", "    client = mock.Mock()", "    return self.session"]
    added = ["from tests.fixtures import client", "    return self.session"]
    assert pitfalls.needles(removed, added) == ("mock",)
    assert pitfalls.needles(["requests.get(url)"], ["http.get(url)"]) == ("requests.get",)
    assert pitfalls.needles(["x = 1"], []) == ()


def test_a_learned_lesson_records_its_pitfall_and_keeps_it_when_confirmed() -> None:
    """The first edit records `pitfall: mock`; the confirming one keeps what both share."""
    first = apply(None, lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30"))
    assert only_entry(first).get("pitfall") == "mock"
    both = apply(first, lessons.plan(pr(2), po.MERGED_AFTER_CHANGES, first, today="2026-12-01"))
    entry = only_entry(both)
    assert entry.get("status") == "active" and entry.get("pitfall") == "mock"
    assert entry.get_all("pitfall") == ["mock"]  # replaced, not repeated


def test_only_active_edit_lessons_become_pitfalls_and_old_lines_still_parse() -> None:
    """Tentative, revoked and closing lessons are not checked; a lesson written before
    `pitfall:` existed is matched by its signature's removed words."""
    text = (
        "# Conventions: octo/app\n\n"
        "- New way [source: u1; status: active; signature: edit tests/*.py +fixture -mock; "
        "pitfall: mock]\n"
        "- Old line [source: u2; status: active; signature: edit src/*.py +logger -print]\n"
        "- Unsure [source: u3; status: tentative; signature: edit docs/*.md -todo; pitfall: TODO]\n"
        "- Gone [source: u4; status: revoked; signature: edit tests/*.py -sleep; pitfall: sleep]\n"
        "- Said no [source: u5; status: active; signature: closed *.py +vendor]\n"
    )
    assert fmt.parse(text).entries  # the file itself is ordinary memory
    pits = pitfalls.pitfalls(text)
    assert [(p.text, p.needles, sorted(p.words)) for p in pits] == [
        ("New way", ("mock",), ["mock"]),
        ("Old line", (), ["print"]),
    ]
    found = pitfalls.find(
        pits,
        [
            pitfalls.AddedLine("tests/test_a.py", 3, "    m = mock.MagicMock()"),
            pitfalls.AddedLine("tests/sub/test_b.py", 4, "import mock"),  # deeper: still in scope
            pitfalls.AddedLine("src/app.py", 9, '    print("debug")'),
            pitfalls.AddedLine("src/app.py", 10, "    sprint = 2"),  # a word, not the word
            pitfalls.AddedLine("lib/app.py", 5, "import mock"),  # outside every scope
            pitfalls.AddedLine("tests/test_a.py", 7, "    mock_server = start()"),  # other name
        ],
    )
    assert [(f.path, f.line, f.matched) for f in found] == [
        ("tests/test_a.py", 3, "mock"),
        ("tests/sub/test_b.py", 4, "mock"),
        ("src/app.py", 9, "print"),
    ]


def test_claude_claims_must_cite_a_lesson_on_an_added_line() -> None:
    """Claims on lines the diff did not add, or citing an unknown lesson, are dropped; a claim
    on a line the words already flagged adds nothing."""
    pit = pitfalls.Pitfall("Use fixtures", frozenset({"tests/*.py"}), ("mock",))
    lines = pitfalls.added_lines("tests/test_a.py", PATCH)
    answer = (
        "tests/test_a.py:6 L1 asserts a patched object\n"
        "- `tests/test_a.py:5` L1 same line as the words found\n"
        "tests/test_a.py:3 L1 a context line\n"
        "tests/test_a.py:24 L2 no lesson 2\n"
        "NONE\n"
    )
    claimed = pitfalls.claims(answer, [pit], lines)
    assert [(f.line, f.reason) for f in claimed] == [
        (6, "asserts a patched object"),
        (5, "same line as the words found"),
    ]
    words = pitfalls.find([pit], lines)
    merged = pitfalls.merge(words, claimed)
    assert [(f.line, f.matched) for f in merged] == [
        (2, "mock"),
        (5, "mock"),
        (24, "mock"),
        (6, "Claude"),
    ]
