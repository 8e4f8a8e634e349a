"""People's lines survive any agent write, whatever the line is (issue 37, section 3).

A property test: on a memory a person wrote (entries, prose, headings, code fences of ``` and
~~~, reminders, a `.txt` file), any sequence of an agent's operations, built as its doors build
them (MCP `writeMemory` with entries, replacements or a whole file, `deleteMemory` of entries or
a file; the Slack agent's `write_file`, `replace_in_file` and `delete_file` in its working copy,
turned into operations by memory/trust/sandbox.py), each passed through the quality gate and
applied by the write path's own rules (memory/writes/apply.py with the agent): after every
step, each line the person wrote is still in its file byte for byte (or, for an entry, proposed
for deletion in `proposals.md`), each of the person's entries is still an entry (no fence hides
it), and no file is left with a code fence open.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory import format as fmt
from memory.errors import MemoryStoreError
from memory.facts import tombstones
from memory.trust import Agent, Gate, sandbox
from memory.trust.rules import PROPOSALS
from memory.writes import (
    AddEntry,
    AddTombstone,
    DeleteFile,
    Operation,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
    apply_ops,
)

WORDS = ("deploy", "vendor", "checkout", "queue", "retry", "billing", "canary", "region",
         "token", "rollback", "cache", "replica", "timeout", "freeze", "export")  # fmt: skip
AGENT = Agent("claude-code", "by claude-code")
WHO = sandbox.Attribution("https://x.slack.com/archives/C1/p1", "hippo for U1", "2026-12-02")
TOPIC = """# Checkout

The checkout service talks to the vendor through the egress proxy.

- checkout retries vendor calls 5 times [source: https://wiki.example/1; by: alice]
- the vendor timeout is 30 seconds [by: alice; verified: 2026-11-20]

## Runbook

```
- kubectl rollout undo deploy/checkout
echo done
```

~~~sh
- not an entry either
~~~

- rollbacks need two approvals [by: bob]
"""
NOTES = "ops notes\n- the billing export runs at 02:00 UTC [by: alice]\nkeep this line\n"
REMINDERS = """# Reminders: what to do later, and when

- remove the canary flag after 15 December [due: 2026-12-16; added: 2026-12-02; by: alice]
- re-check the rate limit after the migration [when: after the migration; added: 2026-12-02; by: bob]
"""
PROSE = "# Design\n\nWe keep one queue per region.\n\nNo entries here, only prose.\n"
MEMORY = {"services/checkout.md": TOPIC, "ops/notes.txt": NOTES, "reminders.md": REMINDERS,
          "design/queues.md": PROSE}  # fmt: skip
PATHS = (*MEMORY, "services/new.md")


def persons_lines(tree: dict[str, str]) -> dict[str, Counter[str]]:
    return {p: Counter(ln for ln in t.split("\n") if ln.strip()) for p, t in tree.items()}


def persons_entries(tree: dict[str, str]) -> dict[str, set[str]]:
    return {p: {e.text for e in fmt.parse(t).entries} for p, t in tree.items()}


def agent_line(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["entry", "entry", "prose", "fence", "tilde", "heading", "blank"]))
    words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5)))
    return {
        "entry": f"- agent says {words}",
        "prose": f"agent prose about {words}",
        "fence": "```",
        "tilde": "~~~",
        "heading": f"## {words}",
        "blank": "",
    }[kind]


def new_text(draw: st.DrawFn, old: str) -> str:
    """A whole file as an agent might write it: some of the old lines, in any order, and its own."""
    kept = draw(st.lists(st.sampled_from(old.split("\n") or [""]), max_size=12)) if old else []
    mine = [agent_line(draw) for _ in range(draw(st.integers(0, 5)))]
    lines = draw(st.permutations(kept + mine))
    return "\n".join(lines) + "\n"


def operations(draw: st.DrawFn, tree: dict[str, str]) -> list[Operation]:
    """One agent's call through one door, as that door turns it into operations."""
    path = draw(st.sampled_from(PATHS))
    old = tree.get(path)
    entries = fmt.parse(old or "").entries
    door = draw(st.sampled_from(["write", "sandbox_write", "sandbox_replace", "sandbox_delete",
                                 "add", "delete_entries", "delete_file", "replace"]))  # fmt: skip
    if door == "write":
        return [WriteFile(path, new_text(draw, old or ""))]
    if door.startswith("sandbox"):
        work = dict(tree)
        if door == "sandbox_write":
            work[path] = new_text(draw, old or "")
        elif door == "sandbox_delete":
            work.pop(path, None)
        elif old:
            line = draw(st.sampled_from(old.split("\n")))
            work[path] = old.replace(line, agent_line(draw) if draw(st.booleans()) else "", 1)
        base = {p: t.encode() for p, t in tree.items()}
        return sandbox.plan(base, {p: t.encode() for p, t in work.items()}, WHO).ops
    if door == "add":
        return [AddEntry(path, agent_line(draw)[2:] or "agent says deploy", ())]
    if not entries:
        return []
    if door == "replace":
        e = draw(st.sampled_from(entries))
        return [ReplaceEntry(path, e.text, agent_line(draw).removeprefix("- ") or e.text, ())]
    gone = draw(st.lists(st.sampled_from(entries), min_size=1, max_size=3, unique_by=id))
    ops: list[Operation] = (
        [DeleteFile(path)] if door == "delete_file" else [RemoveEntry(path, e.text) for e in gone]
    )
    for e in entries if door == "delete_file" else gone:
        stone, meta = tombstones.entry_for(
            e, path=path, removed="2026-12-02", by="claude-code", reason="stale"
        )
        ops.append(AddTombstone(tombstones.PATH, stone, meta, title=tombstones.TITLE))
    return ops


def apply(tree: dict[str, str], ops: list[Operation]) -> None:
    """The write path's own rules for an agent's write, after the gate; a refused write changes
    nothing (the store refuses it whole)."""
    gated = Gate(origin=AGENT.evidence).apply(ops, tree.get)
    try:
        applied = apply_ops(gated, tree.get, agent=AGENT)
    except MemoryStoreError:
        return
    for path, text in applied.changes.items():
        if text is None:
            tree.pop(path, None)
        else:
            tree[path] = text


def open_fence(text: str) -> str:
    """The fence left open at the end of `text` (CommonMark: a line opening with ``` or ~~~,
    closed by the same), read here apart from the parser under test."""
    fence = ""
    for line in text.split("\n"):
        mark = next((m for m in ("```", "~~~") if line.lstrip(" ")[:3] == m), "")
        if mark and len(line) - len(line.lstrip(" ")) <= 3 and (not fence or mark == fence):
            fence = "" if fence else mark
    return fence


def proposed(tree: dict[str, str], path: str) -> set[str]:
    doc = fmt.parse(tree.get(PROPOSALS, ""))
    return {e.text for e in doc.entries if e.get("path") == path}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_line_a_person_wrote_stays_or_is_proposed(data: st.DataObject) -> None:
    tree = dict(MEMORY)
    lines, entries = persons_lines(MEMORY), persons_entries(MEMORY)
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        ops = operations(data.draw, tree)
        apply(tree, ops)
        for path, wanted in lines.items():
            text = tree.get(path, "")
            have = Counter(ln for ln in text.split("\n") if ln.strip())
            doc = fmt.parse(text)
            live = {e.text for e in doc.entries}
            assert not open_fence(text), f"{path} left with a fence open:\n{text}"
            for line, n in wanted.items():
                entry = fmt.parse_entry(line)
                if have[line] < n:
                    assert entry is not None and entry.text in proposed(tree, path), (
                        f"{path}: {line!r} is gone\n{text}"
                    )
            for e in entries[path]:
                assert e in live or e in proposed(tree, path), f"{path}: {e!r} hidden\n{text}"
