"""Tags through the doors (issue 29 item 4): `hippo note --tag`, MCP writeMemory `tags`, who may
tag what (an agent tags its own tentative entries, never a person's), a bad tag refused with
nothing committed, and `tag:` in `hippo search` and MCP searchMemory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from memory import format as fmt
from memory.git import Author, Store
from memory.writes import DeleteFile, WriteFile
from tests.bot.test_mcp import run_call, text_of

ALICE = Author("alice", "alice@example.com")
PATH = "services/checkout.md"
PERSON = "Checkout retries vendor calls 5 times before failing"
SEED = f"# checkout\n\n- {PERSON} [by: alice; tags: vendors]\n"


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(str(tmp_path / "remote.git"), tmp_path / "data", workspace=tmp_path.name)
    s.init()
    s.write([WriteFile(PATH, SEED)], author=ALICE, message="seed")
    return s


def call(store: Store, tool: str, args: dict[str, object], who: str = "claude-code") -> str:
    result = run_call(build_server(MemoryTools(store, workspace="w"), fixed(who)), tool, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


def entries(store: Store, path: str = PATH) -> dict[str, fmt.Entry]:
    return {e.text: e for e in fmt.parse(store.read_or_none(path) or "").entries}


def test_note_tag_flags_write_one_tags_key(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`--tag` repeats and takes commas; the entry carries one `tags:` key."""
    assert main([*argv, "init"]) == 0
    args = ["note", "drain the queue before a deploy", "--tag", "deploy", "--tag", "queues, ops"]
    assert main([*argv, *args]) == 0
    capsys.readouterr()
    assert main([*argv, "show", "inbox.md"]) == 0
    assert "[added: " in capsys.readouterr().out
    assert main([*argv, "search", "drain queue", "--json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["meta"]["tags"] == "deploy, queues, ops"


def test_a_bad_tag_is_refused_and_nothing_is_committed(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main([*argv, "init"])
    capsys.readouterr()
    main([*argv, "log"])
    before = capsys.readouterr().out
    assert main([*argv, "note", "drain the queue", "--tag", "de$ploy"]) == 1
    err = capsys.readouterr().err
    assert "'de$ploy' is not a tag" in err and len(err.strip().splitlines()) == 1
    main([*argv, "log"])
    assert capsys.readouterr().out == before


def test_mcp_write_tags_join_the_entry_s_own(store: Store) -> None:
    """writeMemory `tags` are added to each entry's own `[tags: …]`, duplicates by key dropped;
    the agent's entry is tentative and keeps them."""
    line = "The vendor sandbox answers 504 under load [tags: vendors]"
    call(
        store,
        "writeMemory",
        {"path": PATH, "message": "m", "entries": [line], "tags": ["Vendor", "load"]},
    )
    mine = entries(store)["The vendor sandbox answers 504 under load"]
    assert mine.get("status") == "tentative" and mine.get("tags") == "vendors, load"


def test_an_agent_tags_its_own_entry_never_a_person_s(store: Store) -> None:
    """An agent's replace that adds a tag changes its own tentative entry; the same edit of a
    person's entry changes nothing (their metadata is theirs)."""
    mine = "The vendor sandbox answers 504 under load"
    call(store, "writeMemory", {"path": PATH, "message": "m", "entries": [mine]})
    edits = [
        {"match": mine, "text": f"{mine} [tags: sandbox]"},
        {"match": PERSON, "text": f"{PERSON} [tags: vendors, retries]"},
    ]
    call(store, "writeMemory", {"path": PATH, "message": "tag", "replace": edits})
    got = entries(store)
    assert got[mine].get("tags") == "sandbox" and got[mine].get("status") == "tentative"
    assert f"- {PERSON} [by: alice; tags: vendors]\n" in store.read(PATH)


def test_mcp_refuses_a_bad_tag(store: Store) -> None:
    tools = MemoryTools(store, workspace="w")
    args = {"path": PATH, "message": "m", "entries": ["x is y"], "tags": ["a;b"]}
    result = run_call(build_server(tools, fixed("claude-code")), "writeMemory", args)
    assert result.is_error and "is not a tag" in text_of(result)
    assert "x is y" not in store.read(PATH)


def test_tag_in_search_through_the_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """`tag:deploy` alone lists the entries carrying it (any spelling of the tag), newest first;
    with words, only the tagged entries among the words' hits; two tags need both."""
    main([*argv, "init"])
    notes = [
        ("drain the queue before a deploy", "Deploys"),
        ("roll back with the deploy script, never by hand", "deploy, rollback"),
        ("roll back a billing export by re-running it", "billing"),
    ]
    for text, tag in notes:
        assert main([*argv, "note", text, "--path", "ops/deploy.md", "--tag", tag]) == 0
    capsys.readouterr()

    def found(query: str) -> list[str]:
        assert main([*argv, "search", query, "--json"]) == 0
        return [h["text"] for h in json.loads(capsys.readouterr().out)]

    assert sorted(found("tag:deploy")) == sorted(t for t, _ in notes[:2])
    assert found("roll back tag:DEPLOYS") == [notes[1][0]]
    assert found("roll back") and len(found("roll back")) == 2
    assert found("tag:deploy tag:rollbacks") == [notes[1][0]]
    assert found("tag:nothing") == [] and found('tag:"on call" roll') == []


def test_tag_in_mcp_search_memory(store: Store) -> None:
    """searchMemory's `tag:` (the store's one retrieval core, as Slack recall): the agent's
    untagged entry that holds the word is left out."""
    call(store, "writeMemory", {"path": PATH, "message": "m", "entries": ["Vendor retries: 3"]})
    server = build_server(MemoryTools(store, workspace="w"), fixed("a"))
    plain = run_call(server, "searchMemory", {"query": "vendor retries"}).structured_content
    tagged = run_call(server, "searchMemory", {"query": "tag:vendor retries"}).structured_content
    assert isinstance(plain, dict) and isinstance(tagged, dict)
    assert len(plain["result"]) == 2
    assert [h["text"] for h in tagged["result"]] == [PERSON]


def test_words_with_a_tag_rank_among_the_tagged_entries_only(store: Store) -> None:
    """Hundreds of untagged lines outrank the tagged ones on the words (shorter lines): the
    tagged entries are still every hit, as the words are searched among them alone."""
    untagged = [f"- drain the queue n{i}\n" for i in range(800)]
    files = {f"bulk/{f}.md": f"# bulk {f}\n\n" + "".join(untagged[f::8]) for f in range(8)}
    long_tail = "with the ops checklist, the pager muted and the status page updated first"
    mine = [f"drain the queue before deploy step {i} {long_tail}" for i in range(5)]
    files["ops/deploy.md"] = "# deploy\n\n" + "".join(f"- {t} [tags: deploy]\n" for t in mine)
    store.write([WriteFile(p, t) for p, t in files.items()], author=ALICE, message="bulk")
    assert not {h.text for h in store.search("drain queue", limit=20)} & set(mine)
    hits = store.search("drain queue tag:deploy", limit=20)
    assert sorted(h.text for h in hits) == sorted(mine)
    assert {h.line for h in hits} == {3, 4, 5, 6, 7} and {h.path for h in hits} == {"ops/deploy.md"}
    precise = store.search("step 3 tag:deploy", limit=20, all_words=True)
    assert [h.text for h in precise] == [mine[3]]


def test_tag_search_follows_each_commit(store: Store) -> None:
    """The entries carrying a tag follow commits by their tree diff: a tag added, one removed
    and a file deleted are seen by the next search."""
    assert [h.text for h in store.search("tag:vendors")] == [PERSON]
    other = "# other\n\n- refunds settle overnight [tags: vendor]\n"
    store.write([WriteFile("other.md", other)], author=ALICE, message="add")
    assert {h.text for h in store.search("tag:vendor")} == {PERSON, "refunds settle overnight"}
    store.write(
        [WriteFile(PATH, f"# checkout\n\n- {PERSON} [by: alice]\n")], author=ALICE, message="untag"
    )
    assert [h.text for h in store.search("tag:vendor")] == ["refunds settle overnight"]
    store.write([DeleteFile("other.md")], author=ALICE, message="rm")
    assert store.search("tag:vendor") == []


def test_an_agent_may_not_declare_tag_aliases(store: Store) -> None:
    """.hippo/tags.md steers how the dream rewrites everyone's tags: people's to write."""
    tools = MemoryTools(store, workspace="w")
    args = {"path": ".hippo/tags.md", "message": "m", "entries": ["deploy [aliases: billing]"]}
    result = run_call(build_server(tools, fixed("claude-code")), "writeMemory", args)
    assert result.is_error and "written by people only" in text_of(result)
    assert store.read_or_none(".hippo/tags.md") is None
