"""The agent's tools: confined to the working copy, failures reported, edits vetted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from integrations.agent_tools import TOOLS, Toolbox, ToolError


@pytest.fixture
def tools(tmp_path: Path) -> Toolbox:
    root = tmp_path / "tree"
    (root / "services").mkdir(parents=True)
    (root / "archive").mkdir()
    (root / ".dream").mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- deploys happen at 10:00\n")
    (root / "services" / "checkout-api.md").write_text(
        "# checkout-api\n\n- 504s come from the vendor sandbox under parallel load\n"
    )
    (root / "archive" / "2026-11-30.jsonl").write_text('{"question": "secret episode"}\n')
    (root / ".dream" / "state.json").write_text("{}")
    (root / "forgotten.md").write_text("# Forgotten\n\n- the VPN host is vpn1 [removed: x]\n")
    (tmp_path / "outside.md").write_text("not memory")
    return Toolbox(root, changes=lambda since: f"changes since {since}")


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "/etc/passwd", "services/../../outside.md", ".git/config", "", "a\\b"],
)
def test_paths_outside_the_working_copy_are_refused(tools: Toolbox, path: str) -> None:
    """Reading or writing outside the memory raises ToolError, never touches the file."""
    with pytest.raises(ToolError):
        tools.call("read_file", {"path": path})
    with pytest.raises(ToolError):
        tools.call("write_file", {"path": path, "content": "x"})
    assert (tools.root.parent / "outside.md").read_text() == "not memory"


def test_a_symlink_out_of_the_copy_is_refused(tools: Toolbox) -> None:
    """A link inside the copy that points outside it does not lead out."""
    os.symlink(tools.root.parent / "outside.md", tools.root / "link.md")
    with pytest.raises(ToolError, match="outside the memory"):
        tools.call("read_file", {"path": "link.md"})


def test_archive_is_invisible_and_dream_read_only(tools: Toolbox) -> None:
    """Episodes never reach the model; .dream/ can be read, not written."""
    with pytest.raises(ToolError):
        tools.call("read_file", {"path": "archive/2026-11-30.jsonl"})
    assert "archive" not in tools.call("list_folder", {"path": ""})
    assert tools.call("search", {"query": "secret episode"}).startswith("no lines match")
    assert tools.hits == []
    assert tools.call("read_file", {"path": ".dream/state.json"}) == "{}"
    with pytest.raises(ToolError, match="read-only"):
        tools.call("write_file", {"path": ".dream/state.json", "content": "[]"})


def test_search_ranks_subject_words_and_records_hits(tools: Toolbox) -> None:
    """'why does checkout-api return 504s' finds the checkout-api entry first."""
    out = tools.call("search", {"query": "why does checkout-api return 504s after deploys?"})
    assert out.splitlines()[0].startswith("services/checkout-api.md:3: 504s come from")
    assert tools.hits[0].path == "services/checkout-api.md"


def test_read_list_and_missing_files(tools: Toolbox) -> None:
    """read_file returns text and records it; a missing file is a ToolError that says what to do."""
    assert "vendor sandbox" in tools.call("read_file", {"path": "services/checkout-api.md"})
    assert tools.read == ["services/checkout-api.md"]
    assert tools.call("list_folder", {"path": "services"}) == "checkout-api.md"
    with pytest.raises(ToolError, match="does not exist"):
        tools.call("read_file", {"path": "services/nope.md"})
    with pytest.raises(ToolError, match="unknown tool"):
        tools.call("rm_rf", {})
    with pytest.raises(ToolError, match="bad arguments"):
        tools.call("read_file", {"file": "MEMORY.md"})
    with pytest.raises(ToolError, match="bad arguments"):
        tools.call("search", {"query": "deploys", "limit": "many"})


def test_edits_change_the_copy_and_are_recorded(tools: Toolbox) -> None:
    """write_file, replace_in_file and delete_file edit plain files and record the paths."""
    tools.call("write_file", {"path": "services/new.md", "content": "# new\n\n- a fact\n"})
    tools.call(
        "replace_in_file",
        {"path": "MEMORY.md", "old": "at 10:00", "new": "at 11:00"},
    )
    tools.call("delete_file", {"path": "services/new.md"})
    assert "11:00" in (tools.root / "MEMORY.md").read_text()
    assert not (tools.root / "services" / "new.md").exists()
    assert tools.touched == ["services/new.md", "MEMORY.md"]
    with pytest.raises(ToolError, match="exactly once"):
        tools.call("replace_in_file", {"path": "MEMORY.md", "old": "absent", "new": "x"})


def test_secrets_and_forgotten_facts_are_refused_at_edit_time(tools: Toolbox) -> None:
    """The model hears at once that an edit holds a secret or re-adds a forgotten fact."""
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    with pytest.raises(ToolError, match="refused"):
        tools.call("write_file", {"path": "a.md", "content": f"- key {key}\n"})
    with pytest.raises(ToolError, match="forgotten"):
        tools.call("write_file", {"path": "a.md", "content": "- The VPN host is vpn1\n"})
    assert not (tools.root / "a.md").exists()


def test_changes_since_and_tool_specs(tools: Toolbox) -> None:
    """changes_since delegates to the history callable; every tool has a handler."""
    assert tools.call("changes_since", {}) == "changes since None"
    assert tools.call("changes_since", {"since": "2026-11-01"}) == "changes since 2026-11-01"
    for spec in TOOLS:
        assert hasattr(tools, f"_tool_{spec['name']}")


def test_an_edit_leaves_other_lines_bytes_alone(tools: Toolbox) -> None:
    """A file with CRLF endings and a lone carriage return inside an entry: the model reads it
    as git holds it, and replacing one word changes that word only (read_text()'s universal
    newlines turned every \\r into \\n, rewriting lines the model never touched)."""
    raw = b"# Runbook\r\n\r\n- restart the worker\r\n- the ledger\rexport runs at 02:00\r\n"
    (tools.root / "services" / "runbook.md").write_bytes(raw)
    assert tools.call("read_file", {"path": "services/runbook.md"}) == raw.decode()
    tools.call(
        "replace_in_file",
        {"path": "services/runbook.md", "old": "restart the worker", "new": "restart the web"},
    )
    after = (tools.root / "services" / "runbook.md").read_bytes()
    assert after == raw.replace(b"restart the worker", b"restart the web")
