"""Integrity of the write path (issue 12, items 1-7 and 14): each refusal through a real door,
and the remote unchanged by it. Doors: the CLI's main, the MCP client, the console with a signed-in
session, the agent's tools and sandbox push."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pygit2
import pytest
from filelock import FileLock
from flask.testing import FlaskClient
from mcp import Client
from mcp_types import CallToolResult, TextContent
from pygit2.enums import FileMode

from bot.app import create_app
from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from integrations.agent_tools import Toolbox
from memory import format as fmt
from memory import writes
from memory.errors import InvalidText, MemoryStoreError
from memory.git import Author, Store
from memory.trust import sandbox
from tests.bot.test_console import csrf, make_rt, sign_in

ANN = Author("ann", "ann@example.com")
TOMBSTONES = "# Forgotten\n\n- the vpn host is vpn1 [removed: 2026-11-01; by: U2]\n"


def remote_tip(remote: Path) -> str:
    return str(pygit2.Repository(str(remote)).references["refs/heads/main"].target)


def remote_file(remote: Path, path: str) -> str | None:
    repo = pygit2.Repository(str(remote))
    tree = repo.revparse_single("refs/heads/main").peel(pygit2.Commit).tree
    try:
        blob = tree[path]
    except KeyError:
        return None
    return bytes(blob.data).decode() if isinstance(blob, pygit2.Blob) else None


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return tmp_path / "remote.git"


@pytest.fixture
def store(store: Store) -> Store:
    """A seeded entry and a tombstone, for the integrity checks to find."""
    s = store
    s.write(
        [
            writes.WriteFile("services/api.md", "# api\n\n- api runs on k8s\n"),
            writes.AddTombstone(
                "forgotten.md", "the vpn host is vpn1", (("removed", "2026-11-01"),)
            ),
        ],
        author=ANN,
        message="seed",
    )
    return s


def cli(tmp_path: Path, *args: str) -> int:
    base = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "cli-data")]
    return main([*base, *args])


def mcp(store: Store, name: str, args: dict[str, Any], who: str = "agent-a") -> CallToolResult:
    async def go() -> CallToolResult:
        async with Client(build_server(MemoryTools(store), fixed(who))) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


# -- 1. paths that collide with a file or a folder ------------------------------------------


@pytest.mark.parametrize("path", ["forgotten.md/x.md", "MEMORY.md/z", "services/api.md/y.md"])
def test_a_path_under_a_file_is_refused_and_the_file_kept(
    tmp_path: Path, store: Store, remote: Path, path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI `note --path <file>/x.md`: PathConflict, and the file under attack is still there."""
    before = remote_tip(remote)
    assert cli(tmp_path, "note", "a fact", "--path", path) == 1
    err = capsys.readouterr().err
    assert "is a file, and a path under it would delete that file" in err
    assert remote_tip(remote) == before
    assert "vpn1" in (remote_file(remote, "forgotten.md") or "")


def test_mcp_write_under_a_file_or_onto_a_folder_is_refused(store: Store, remote: Path) -> None:
    """MCP writeMemory under MEMORY.md, or a whole file where a folder is: named errors."""
    before = remote_tip(remote)
    under = mcp(store, "writeMemory", {"path": "MEMORY.md/z", "message": "m", "entries": ["x"]})
    assert under.is_error and "MEMORY.md is a file" in text_of(under)
    onto = mcp(store, "writeMemory", {"path": "services", "message": "m", "content": "# s\n"})
    assert onto.is_error and "services is a folder" in text_of(onto)
    assert remote_tip(remote) == before


# -- 2. every script has words; no words, no key ------------------------------------------------

RU_1 = "Сервис оплаты падает ночью"
RU_2 = "Очередь писем чистится по понедельникам"


def test_console_edit_of_one_russian_entry_leaves_the_other(tmp_path: Path) -> None:
    """Two Russian entries: editing the second in the console changes only the second."""
    rt = make_rt(tmp_path)
    try:
        rt.store.write(
            [writes.WriteFile("ru.md", f"# ru\n\n- {RU_1}\n- {RU_2}\n")], author=ANN, message="ru"
        )
        client: FlaskClient = create_app(rt.config, rt).test_client()
        sign_in(client)
        token = csrf(client, "/console/entry/ru.md?line=3")
        resp = client.post(
            "/console/entry/ru.md",
            data={"csrf_token": token, "match": RU_2, "text": RU_2 + " утром", "meta": "",
                  "message": "fix"},
        )  # fmt: skip
        assert resp.status_code == 302
        text = remote_file(tmp_path / "remote.git", "ru.md") or ""
        assert f"- {RU_1}\n" in text and f"- {RU_2} утром\n" in text
    finally:
        rt.close()


def test_mcp_delete_and_cli_forget_touch_only_the_named_non_latin_entry(
    tmp_path: Path, store: Store, remote: Path
) -> None:
    """deleteMemory of one Russian entry (an agent's) removes only it; the tombstone then blocks
    an agent's re-add (also written with a look-alike Latin letter); CLI forget of a CJK fact
    names only it."""
    agents = "[by: bot; kind: fact; status: tentative]"
    store.write(
        [
            writes.WriteFile(
                "ru.md", f"# ru\n\n- {RU_1} {agents}\n- {RU_2}\n- 支付服务在夜间宕机\n- 🙂\n"
            )
        ],
        author=ANN,
        message="ru",
    )
    out = mcp(store, "deleteMemory", {"path": "ru.md", "message": "m", "entries": [RU_1]})
    assert not out.is_error, text_of(out)
    text = remote_file(remote, "ru.md") or ""
    assert RU_1 not in text and RU_2 in text and "🙂" in text
    assert RU_1 in (remote_file(remote, "forgotten.md") or "")
    before = remote_tip(remote)
    # an agent's removal binds agents (a person may save the fact again: docs/TRUST.md)
    lookalike = RU_1.replace("о", "o")  # Latin 'o' in place of Cyrillic 'о'
    assert lookalike != RU_1
    for again in (RU_1.upper(), lookalike):
        args = {"path": "ru.md", "message": "m", "entries": [again]}
        assert mcp(store, "writeMemory", args, who="agent-b").is_error
    assert remote_tip(remote) == before
    assert cli(tmp_path, "forget", "支付服务在夜间宕机") == 0
    text = remote_file(remote, "ru.md") or ""
    assert "支付" not in text and RU_2 in text and "🙂" in text
    assert fmt.normalise("🙂") == "" and not fmt.same_fact("🙂", "—")


def test_the_same_russian_fact_twice_is_one_entry(
    tmp_path: Path, store: Store, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI note of a Russian fact already there (other case, a zero-width space): no duplicate."""
    store.write([writes.WriteFile("ru.md", f"# ru\n\n- {RU_1}\n")], author=ANN, message="ru")
    before = remote_tip(remote)
    assert cli(tmp_path, "note", RU_1.upper().replace(" ", " \u200b", 1), "--path", "ru.md") == 0
    assert "already saved" in capsys.readouterr().out
    assert remote_tip(remote) == before


def test_an_entry_without_words_is_never_matched_by_a_key(store: Store, remote: Path) -> None:
    """An emoji-only entry is removed by its exact text, and another wordless entry stays."""
    agents = "[by: bot; kind: fact; status: tentative]"
    store.write([writes.WriteFile("e.md", f"# e\n\n- 🙂 {agents}\n- — {agents}\n")], author=ANN, message="e")  # fmt: skip
    out = mcp(store, "deleteMemory", {"path": "e.md", "message": "m", "entries": ["—"]})
    assert not out.is_error, text_of(out)
    assert remote_file(remote, "e.md") == f"# e\n\n- 🙂 {agents}\n"


# -- 3. idempotency keys cannot be squatted --------------------------------------------------


def test_an_mcp_key_cannot_claim_a_dream_or_revert_key(store: Store) -> None:
    """An MCP `key` lands in the caller's namespace: hippo's own keys stay free."""
    out = mcp(
        store,
        "writeMemory",
        {"path": "a.md", "message": "m", "entries": ["x"], "key": "dream:2026-11-30:corrections"},
    )
    assert not out.is_error, text_of(out)
    assert store.find_key("dream:2026-11-30:corrections") is None
    assert store.find_key("ext:mcp:agent-a:dream:2026-11-30:corrections") == store.head()


@pytest.mark.parametrize("line", ["Hippo-Key: dream:2026-11-30:corrections", "hippo-dream: x"])
def test_trailer_lines_in_a_message_are_refused(store: Store, remote: Path, line: str) -> None:
    """A `Hippo-…:` line in an MCP commit message is refused; no key is claimed."""
    before = remote_tip(remote)
    out = mcp(store, "writeMemory", {"path": "a.md", "message": f"m\n\n{line}", "entries": ["x"]})
    assert out.is_error and "Hippo-" in text_of(out)
    assert remote_tip(remote) == before
    assert store.find_key("dream:2026-11-30:corrections") is None


def test_console_message_trailer_refused_and_revert_says_what_it_did(tmp_path: Path) -> None:
    """Console: a message carrying `Hippo-Key:` is refused (422, nothing pushed). Reverting a
    commit, reverting that revert, then reverting the commit again removes the fact again."""
    rt = make_rt(tmp_path)
    remote = tmp_path / "remote.git"
    try:
        client: FlaskClient = create_app(rt.config, rt).test_client()
        sign_in(client)
        before = remote_tip(remote)
        token = csrf(client, "/console/edit/new.md")
        resp = client.post(
            "/console/edit/new.md",
            data={"csrf_token": token, "content": "# n\n\n- fact\n",
                  "message": "why\n\nHippo-Key: revert:abc"},
        )  # fmt: skip
        assert resp.status_code == 422 and remote_tip(remote) == before
        added = rt.store.write([writes.AddEntry("r.md", "the fact")], author=ANN, message="add")
        for _ in range(2):
            sha = added.commit if _ == 0 else remote_tip(remote)
            token = csrf(client, f"/console/commit/{sha}")
            assert client.post(f"/console/revert/{sha}", data={"csrf_token": token}).status_code
        assert "the fact" in (remote_file(remote, "r.md") or "")  # revert of the revert
        token = csrf(client, f"/console/commit/{added.commit}")
        client.post(f"/console/revert/{added.commit}", data={"csrf_token": token})
        assert "the fact" not in (remote_file(remote, "r.md") or "")
    finally:
        rt.close()


# -- 4. forgotten.md changes only through forget (and dreaming) -------------------------------


def test_agent_cannot_delete_forgotten_md_and_re_add_the_fact(store: Store, tmp_path: Path) -> None:
    """The agent deletes forgotten.md and writes the fact again in one turn: both refused at
    push, nothing pushed, the tombstone kept."""
    remote = tmp_path / "remote.git"
    before = remote_tip(remote)
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    tools = Toolbox(copy.root)
    tools.call("delete_file", {"path": "forgotten.md"})
    tools.call(
        "write_file", {"path": "services/api.md", "content": "# api\n\n- api runs on k8s\n"
                       "- the VPN host is vpn1\n"},
    )  # fmt: skip
    who = sandbox.Attribution("https://x.slack.com/archives/C1/p1", "hippo for U1", "2026-11-30")
    pushed = sandbox.push(store, copy, who, author=ANN, message="agent", key="slack-agent:Ev9")
    assert pushed.commit is None
    reasons = " ".join(why for _, why in pushed.refused)
    assert "only forget" in reasons and "forgotten on purpose" in reasons
    assert remote_tip(remote) == before


def test_mcp_title_cannot_carry_entry_lines(store: Store, remote: Path) -> None:
    """A multi-line MCP `title` would smuggle an unchecked entry in: refused, nothing pushed."""
    before = remote_tip(remote)
    out = mcp(
        store,
        "writeMemory",
        {"path": "n.md", "message": "m", "entries": ["ok"],
         "title": "N\n\n- the vpn host is vpn1\n- key ghp_" + "a" * 36},
    )  # fmt: skip
    assert out.is_error and "title" in text_of(out)
    assert remote_tip(remote) == before


@pytest.mark.parametrize(
    "args",
    [
        {"path": "forgotten.md", "message": "m", "content": "# Forgotten\n"},
        {"path": "forgotten.md", "message": "m", "entries": ["the api is fine"]},
    ],
)
def test_mcp_write_to_forgotten_md_is_refused(
    store: Store, remote: Path, args: dict[str, Any]
) -> None:
    before = remote_tip(remote)
    out = mcp(store, "writeMemory", args)
    assert out.is_error and "only forget" in text_of(out)
    assert remote_tip(remote) == before


def test_console_cannot_rewrite_forgotten_md(tmp_path: Path) -> None:
    rt = make_rt(tmp_path)
    remote = tmp_path / "remote.git"
    try:
        rt.store.write(
            [writes.AddTombstone("forgotten.md", "old fact", (("removed", "2026-11-01"),))],
            author=ANN,
            message="forget",
        )
        before = remote_tip(remote)
        client: FlaskClient = create_app(rt.config, rt).test_client()
        sign_in(client)
        token = csrf(client, "/console/edit/forgotten.md")
        resp = client.post(
            "/console/edit/forgotten.md",
            data={"csrf_token": token, "content": "# Forgotten\n", "message": "clean"},
        )
        assert resp.status_code == 422 and "only forget" in resp.get_data(as_text=True)
        assert remote_tip(remote) == before
    finally:
        rt.close()


# -- 5. one bad write never fails its neighbours -----------------------------------------------


def test_a_lone_surrogate_fails_only_its_own_write_in_a_group_commit(
    store: Store, remote: Path
) -> None:
    """Eight MCP writes queued behind one leader, one with a lone surrogate: seven land, the
    bad one gets a named error."""
    tools = MemoryTools(store)
    lock = FileLock(str(remote.resolve().parent / f".{remote.name}.lock"))
    results: dict[int, object] = {}

    def write(i: int) -> None:
        text = "bad \ud800 note" if i == 3 else f"good note {i}"
        try:
            results[i] = tools.write(f"w{i}", "group.md", f"note {i}", entries=[text])
        except MemoryStoreError as exc:
            results[i] = exc

    with lock:  # the first writer leads and waits for the lock; the others queue behind it
        first = threading.Thread(target=write, args=(0,))
        first.start()
        while not store.writer.leading:
            time.sleep(0.005)
        rest = [threading.Thread(target=write, args=(i,)) for i in range(1, 8)]
        for t in rest:
            t.start()
        deadline = time.monotonic() + 10
        while store.writer.queued + (3 in results) < 7 and time.monotonic() < deadline:
            time.sleep(0.005)
    for t in [first, *rest]:
        t.join(30)
    assert isinstance(results[3], InvalidText) and "lone surrogate" in str(results[3])
    good = [i for i, r in results.items() if isinstance(r, dict)]
    assert sorted(good) == [0, 1, 2, 4, 5, 6, 7]
    text = remote_file(remote, "group.md") or ""
    assert all(f"good note {i}" in text for i in good) and "bad" not in text


# -- 6. what lint rejects, the write path refuses -----------------------------------------------


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("fact [added: yesterday]", "not a date"),
        ("fact [status: bogus]", "not one of"),
        ("fact [source: ]", "has no value"),
        ("fact [added: 2026-13-45]", "not a date"),
    ],
)
def test_mcp_entries_with_metadata_lint_rejects_are_refused(
    store: Store, remote: Path, entry: str, why: str
) -> None:
    before = remote_tip(remote)
    out = mcp(store, "writeMemory", {"path": "a.md", "message": "m", "entries": [entry]})
    assert out.is_error and why in text_of(out)
    assert remote_tip(remote) == before


def test_console_entry_edit_with_a_bad_date_is_refused(tmp_path: Path) -> None:
    rt = make_rt(tmp_path)
    remote = tmp_path / "remote.git"
    try:
        before = remote_tip(remote)
        client: FlaskClient = create_app(rt.config, rt).test_client()
        sign_in(client)
        token = csrf(client, "/console/entry/services/checkout.md?line=3")
        resp = client.post(
            "/console/entry/services/checkout.md",
            data={"csrf_token": token, "match": "retries are capped at three",
                  "text": "retries are capped at four", "meta": "added: yesterday",
                  "message": "fix"},
        )  # fmt: skip
        assert resp.status_code == 422 and "not a date" in resp.get_data(as_text=True)
        assert remote_tip(remote) == before
    finally:
        rt.close()


# -- 7. control characters; search decides "binary" by the file ----------------------------


def test_control_characters_are_refused(
    tmp_path: Path, store: Store, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = remote_tip(remote)
    assert cli(tmp_path, "note", "hidden\x00fact") == 1
    assert "control character" in capsys.readouterr().err
    out = mcp(store, "writeMemory", {"path": "a.md", "message": "m", "content": "# a\n\x1b[2J\n"})
    assert out.is_error and "control character" in text_of(out)
    assert remote_tip(remote) == before


def test_a_nul_in_one_line_does_not_hide_the_file_from_search(store: Store, remote: Path) -> None:
    """A person's push with a NUL deep in a file: the file's other lines are still found."""
    repo = pygit2.Repository(str(remote))
    head = repo.revparse_single("refs/heads/main").peel(pygit2.Commit)
    body = "# notes\n\n" + "".join(f"- filler line {i}\n" for i in range(700))
    body += "- odd \x00 line\n- the zebra cache warms at noon\n"
    index = pygit2.Index()
    index.read_tree(head.tree)
    index.add(pygit2.IndexEntry("notes.md", repo.create_blob(body.encode()), FileMode.BLOB))
    sig = pygit2.Signature("person", "p@example.com")
    repo.create_commit("refs/heads/main", sig, sig, "push", index.write_tree(repo), [head.id])
    store.sync()
    assert [h.path for h in store.search("zebra cache")] == ["notes.md"]


# -- 14. one size cap for every door --------------------------------------------------------


def test_agent_cannot_push_a_huge_file(store: Store, tmp_path: Path, remote: Path) -> None:
    """The agent writes a 3 MB file: refused at push with TooLarge, nothing pushed."""
    before = remote_tip(remote)
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    (copy.root / "big.txt").write_text("x" * (3 * 1024 * 1024))
    who = sandbox.Attribution("", "hippo for U1", "2026-11-30")
    pushed = sandbox.push(store, copy, who, author=ANN, message="agent", key="slack-agent:Ev8")
    assert pushed.commit is None and "the limit is 2,097,152" in pushed.refused[0][1]
    assert remote_tip(remote) == before


def test_mcp_content_over_the_cap_is_refused(store: Store, remote: Path) -> None:
    before = remote_tip(remote)
    big = "# big\n\n" + "- a line of text\n" * 200_000
    out = mcp(store, "writeMemory", {"path": "big.md", "message": "m", "content": big})
    assert out.is_error and "limit" in text_of(out)
    assert remote_tip(remote) == before


# -- 15 (write path): every string that reaches git is scanned --------------------------------

GHP = "ghp_" + "b1" * 18


@pytest.mark.parametrize(
    "args",
    [
        ("note", "a fact", "--path", f"{GHP}.md"),
        ("note", "a fact", "--key", GHP),
        ("note", "a fact", "--source", f"https://x.test/?t={GHP}"),
        ("note", f"token ghp_\u200b{GHP[4:]}"),  # a zero-width space inside the token
        ("note", "a fact", "--by", GHP),
    ],
)
def test_cli_secrets_in_paths_keys_sources_and_authors_are_refused(
    tmp_path: Path, store: Store, remote: Path, args: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    before = remote_tip(remote)
    assert cli(tmp_path, *args) == 1
    assert "secret" in capsys.readouterr().err
    assert remote_tip(remote) == before


@pytest.mark.parametrize(
    "args",
    [
        {"path": "a.md", "message": f"rotated {GHP}", "entries": ["x"]},
        {"path": "a.md", "message": "m", "entries": [f"x [{GHP}: 1]"]},
    ],
)
def test_mcp_secrets_in_messages_and_metadata_keys_are_refused(
    store: Store, remote: Path, args: dict[str, Any]
) -> None:
    before = remote_tip(remote)
    out = mcp(store, "writeMemory", args)
    assert out.is_error and "secret" in text_of(out)
    assert remote_tip(remote) == before
