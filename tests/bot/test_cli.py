"""The hippo CLI: init, note, forget, search, show, log, lint, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from memory import format as fmt


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


def run(argv: list[str], *args: str) -> int:
    return main([*argv, *args])


def test_init_note_show_log(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """init, then a note to inbox.md, visible in show and log."""
    assert run(argv, "init") == 0
    assert (
        run(argv, "note", "the batch alert is expected", "--by", "U1", "--source", "https://s/1")
        == 0
    )
    assert "saved in inbox.md" in capsys.readouterr().out
    assert run(argv, "show", "inbox.md") == 0
    assert "- the batch alert is expected [source: https://s/1; added: " in capsys.readouterr().out
    assert run(argv, "log") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("U1: note: the batch alert is expected") and len(out) == 2


def test_a_note_that_creates_a_topic_file_gives_it_a_title(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`hippo note --path` creates the file with `# <Title>` from its name (the same title for
    the same path, every time); an existing file, titled or not, keeps its first line."""
    run(argv, "init")
    assert (
        run(
            argv, "note", "504s after deploys are cold caches", "--path", "services/checkout-api.md"
        )
        == 0
    )
    assert (
        run(argv, "note", "warm the cache in the deploy job", "--path", "services/checkout-api.md")
        == 0
    )
    assert run(argv, "note", "failover takes 30 s", "--path", "runbooks/redis_fail-over.md") == 0
    capsys.readouterr()
    assert run(argv, "show", "services/checkout-api.md") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["# Checkout api", "", lines[2]] and lines[2].startswith("- 504s after")
    assert [ln for ln in lines if ln.startswith("#")] == ["# Checkout api"]
    assert run(argv, "show", "runbooks/redis_fail-over.md") == 0
    assert capsys.readouterr().out.startswith("# Redis fail over\n\n- failover takes 30 s [")
    # a file someone made without a title stays as they wrote it
    from memory.git import Author, Store
    from memory.writes import WriteFile

    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data2")
    store.write(
        [WriteFile("ops/pager.md", "- the rota is in PagerDuty\n")],
        author=Author("a", "a@x.test"),
        message="m",
    )
    assert run(argv, "note", "escalate after 15 minutes", "--path", "ops/pager.md") == 0
    capsys.readouterr()
    assert run(argv, "show", "ops/pager.md") == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("- the rota is in PagerDuty\n- escalate after 15 minutes [")
        and "#" not in out
    )


def test_a_time_bound_note_is_marked_short_lived(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo note` marks "the API is down this afternoon" `scope: short-lived`; a note about
    a date already past ("moved on 2020-03-01") is a lasting fact and is not marked."""
    run(argv, "init")
    assert run(argv, "note", "the partner API is down this afternoon") == 0
    assert run(argv, "note", "billing moved to Postgres on 2020-03-01") == 0
    capsys.readouterr()
    assert run(argv, "show", "inbox.md") == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("- ")]
    assert "scope: short-lived" in lines[0] and "this afternoon" in lines[0]
    assert "scope:" not in lines[1]


def test_note_with_key_is_idempotent(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The same --key twice saves once."""
    run(argv, "init")
    run(argv, "note", "one", "--key", "k")
    run(argv, "note", "one again", "--key", "k")
    assert "already saved" in capsys.readouterr().out


def test_errors_are_one_line_and_non_zero(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused note prints one clear line on stderr and exits 1."""
    run(argv, "init")
    assert run(argv, "note", "ghp_" + "a" * 36) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "GitHub token" in err[0]
    assert run(argv, "show", "nope.md") == 1
    assert "nope.md is not in the memory repository" in capsys.readouterr().err


def test_forget_ambiguous_then_all(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """forget lists several matches and exits 1; --all forgets them all."""
    run(argv, "init")
    run(argv, "note", "deploys freeze on fridays")
    run(argv, "note", "deploys freeze in december")
    capsys.readouterr()
    assert run(argv, "forget", "deploys freeze") == 1
    assert "2 entries match" in capsys.readouterr().out
    assert run(argv, "forget", "deploys freeze", "--all", "--reason", "no more freezes") == 0
    assert run(argv, "show", "forgotten.md") == 0
    assert "reason: no more freezes" in capsys.readouterr().out


def test_search_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """search --json returns hits with path, line, text and metadata."""
    run(argv, "init")
    run(
        argv,
        "note",
        "checkout-api returns 504 under load",
        "--path",
        "services/checkout-api.md",
        "--source",
        "https://s/2",
    )
    capsys.readouterr()
    assert run(argv, "search", "504 checkout", "--json") == 0
    hits = json.loads(capsys.readouterr().out)
    assert (
        hits[0]["path"] == "services/checkout-api.md" and hits[0]["meta"]["source"] == "https://s/2"
    )


def test_search_json_gives_metadata_as_written(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A source holding ';', '[', ']' and a literal '%3B' is escaped in the file and comes back
    from search --json exactly as given (not a%3Bb%5Bc%5D, and the literal %3B not as ';')."""
    source = "https://e.com/q?a=1;b=[2]&c=%3B&d=%20"
    run(argv, "init")
    run(argv, "note", "ledger exports run nightly", "--path", "ops/ledger.md", "--source", source)
    capsys.readouterr()
    assert run(argv, "show", "ops/ledger.md") == 0
    assert "source: https://e.com/q?a=1%3Bb=%5B2%5D&c=%253B&d=%20;" in capsys.readouterr().out
    assert run(argv, "search", "ledger exports", "--json") == 0
    # the new file's title line (# Ledger) is a hit too; the entry is the one with metadata
    [hit] = [h for h in json.loads(capsys.readouterr().out) if h["meta"]]
    print(f"meta.source: {hit['meta']['source']}")
    assert hit["meta"]["source"] == source


def test_search_ranks_every_word_and_all_is_the_precise_lookup(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A question with words the note lacks, another word form and a typo still finds it
    first; --all finds only lines holding every word as written; forget, given the same
    question, removes nothing (it needs every word)."""
    run(argv, "init")
    run(argv, "note", "checkout-api returns 504 under load", "--path", "services/checkout-api.md")
    run(argv, "note", "the billing worker retries invoices", "--path", "services/billing.md")
    capsys.readouterr()
    assert run(argv, "search", "why does checkout return 504s in production", "--json") == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["text"] == "checkout-api returns 504 under load"
    assert run(argv, "search", "biling retry", "--json") == 0
    assert json.loads(capsys.readouterr().out)[0]["path"] == "services/billing.md"
    assert run(argv, "search", "checkout 504 production", "--all", "--json") == 0
    assert json.loads(capsys.readouterr().out) == []
    assert run(argv, "search", "checkout 504", "--all", "--json") == 0
    assert [h["path"] for h in json.loads(capsys.readouterr().out)] == ["services/checkout-api.md"]
    assert run(argv, "forget", "checkout 504 production") == 1
    assert run(argv, "show", "services/checkout-api.md") == 0
    assert "504 under load" in capsys.readouterr().out


def test_lint_exit_codes(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """lint exits 0 on a clean memory and 1 with a broken link."""
    run(argv, "init")
    assert run(argv, "lint") == 0
    run(argv, "note", "see [[nowhere/at-all]]")
    capsys.readouterr()
    assert run(argv, "lint", "--json") == 1
    problems = json.loads(capsys.readouterr().out)
    assert any("nowhere/at-all" in p["message"] for p in problems)


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    """hippo with no command prints usage and exits 2."""
    assert main([]) == 2
    assert "usage: hippo" in capsys.readouterr().out


def test_global_options_after_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo init --remote URL` works as well as `hippo --remote URL init`."""
    remote = str(tmp_path / "r.git")
    assert main(["init", "--remote", remote, "--data-dir", str(tmp_path / "d")]) == 0
    assert remote in capsys.readouterr().out
    assert (tmp_path / "r.git" / "HEAD").exists()


def test_note_in_memory_md_publishes_a_snapshot(argv: list[str], tmp_path: Path) -> None:
    """A CLI edit of MEMORY.md publishes a new prompt snapshot version for new threads."""
    from memory.git import Store

    run(argv, "init")
    assert run(argv, "note", "on-call handbook lives in the wiki", "--path", "MEMORY.md") == 0
    reader = Store.open(str(tmp_path / "remote.git"), tmp_path / "reader")
    reader.sync()
    assert list(reader.refs("snapshots/")) == ["snapshots/1"]
    assert run(argv, "note", "a plain inbox note") == 0
    reader.sync()
    assert list(reader.refs("snapshots/")) == ["snapshots/1"]


@pytest.mark.parametrize(
    "note",
    ["the deploy bot needs VPN [added: yesterday]", "payments run nightly [status: bogus]"],
)
def test_a_note_ending_in_a_bracket_is_saved_as_its_text(
    argv: list[str], capsys: pytest.CaptureFixture[str], note: str
) -> None:
    """Issue 41 item 3 (decision 20): a person's text is text. A note ending in a bracket that
    reads like metadata is saved with the bracket escaped, reads back as the note, and lint
    stays clean (issue 23 refused it as metadata with a bad date or status)."""
    run(argv, "init")
    capsys.readouterr()
    assert run(argv, "note", note) == 0
    capsys.readouterr()
    assert run(argv, "show", "inbox.md") == 0
    shown = capsys.readouterr().out
    entry = fmt.parse(shown).entries[-1]
    assert entry.text == note and [k for k, _ in entry.meta] == ["added"]
    assert run(argv, "lint") == 0


def test_the_person_at_the_cli_writes_as_themselves(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: the CLI resolves who is at it once (HIPPO_USER, a person): a note or a reminder
    without `--by` is theirs, not an anonymous "hippo cli"'s."""
    monkeypatch.setenv("HIPPO_USER", "W111")
    assert run(argv, "init") == 0
    assert run(argv, "note", "the batch alert is expected", "--source", "https://s/1") == 0
    assert run(argv, "remind", "rotate the TLS certificate on 30 December") == 0
    capsys.readouterr()
    assert run(argv, "log") == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[0].rsplit(" ", 1)[-1] for line in out[:2]] == ["W111", "W111"]


def test_search_of_a_huge_word_says_what_was_cut(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37: `hippo search` with a 10,000-character word answers at once; stderr says
    what was left out, stdout (and --json) stay the hits."""
    assert run(argv, "init") == 0
    assert run(argv, "note", "checkout retries vendor calls", "--by", "U1") == 0
    capsys.readouterr()
    assert run(argv, "search", "checkout " + "q" * 10_000) == 0
    said = capsys.readouterr()
    assert "checkout retries vendor calls" in said.out
    assert "hippo: Searched a shorter query: only its first 1,000 characters" in said.err


def test_lint_names_json_nested_too_deep_to_read(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37: an archive line nested 50,000 deep (Python's JSON parser gives up with a
    RecursionError, which crashed `hippo lint`) is a lint problem like any bad line."""
    from memory.git import Author, Store
    from memory.writes import WriteFile

    assert run(argv, "init") == 0
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "seed")
    deep = "[" * 50_000 + "]" * 50_000
    store.write([WriteFile("archive/2026-01-01.jsonl", deep + "\n")], author=Author("a", "a@x"),
                message="seed")  # fmt: skip
    capsys.readouterr()
    run(argv, "lint")
    out = capsys.readouterr().out
    assert "archive/2026-01-01.jsonl:1" in out and "nested too deep to read" in out
