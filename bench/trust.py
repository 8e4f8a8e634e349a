"""Time the write path's trust rules (memory/trust/rules.py) against the same write by a person.

    python bench/trust.py [--entries 5000] [--ops 300] [--repeat 3]

One topic file of `--entries` entries (half a person's, half an agent's tentative ones). Three
writes, each as a person (the baseline: no trust rules) and as an agent (every operation
rewritten on the tip first): `--ops` added entries; `--ops` edits of the agent's entries plus
`--ops` edits of the person's (which land beside them); and a whole-file rewrite of the file with
a new heading. Reported: the median ms of each write, person vs agent, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root holds `bench`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.git import Author, Store
from memory.trust import rules as trust
from memory.writes import AddEntry, Operation, ReplaceEntry, WriteFile

PATH = "services/big.md"
PERSON = Author("ann", "ann@example.com")
AGENT = Author("bench-agent", "bench@mcp.hippo", role=trust.AGENT)


def seed(entries: int) -> str:
    lines = ["# big\n\n"]
    for i in range(entries):
        if i % 2:
            lines.append(f"- agent fact number {i} about service {i % 97} [by: bench-agent; kind: fact; status: tentative]\n")  # fmt: skip
        else:
            lines.append(f"- person fact number {i} about service {i % 89} [by: ann]\n")
    return "".join(lines)


def writes(text: str, n: int) -> dict[str, list[Operation]]:
    adds: list[Operation] = [AddEntry(PATH, f"new fact {i} about queue {i % 31}") for i in range(n)]
    edits: list[Operation] = []
    for i in range(n):
        a, p = 2 * i + 1, 2 * i
        edits.append(ReplaceEntry(PATH, f"agent fact number {a} about service {a % 97}", f"agent fact number {a} about service {a % 97} revised"))  # fmt: skip
        edits.append(ReplaceEntry(PATH, f"person fact number {p} about service {p % 89}", f"person fact number {p} about service {p % 89} revised"))  # fmt: skip
    whole: list[Operation] = [WriteFile(PATH, text.replace("# big\n\n", "# big\n\n## All\n\n"))]
    return {"adds": adds, "edits": edits, "whole file": whole}


def timed(store: Store, ops: list[Operation], author: Author, text: str) -> float:
    store.write([WriteFile(PATH, text)], author=PERSON, message="reset")
    started = time.perf_counter()
    store.write(ops, author=author, message="bench")
    return (time.perf_counter() - started) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=5000)
    ap.add_argument("--ops", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = seed(args.entries)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "r.git"), Path(tmp) / "data")
        store.init()
        print(
            f"{args.entries:,} entries in one file; {args.ops} operations; median of {args.repeat}"
        )
        for name, ops in writes(text, args.ops).items():
            person = statistics.median(timed(store, ops, PERSON, text) for _ in range(args.repeat))
            agent = statistics.median(timed(store, ops, AGENT, text) for _ in range(args.repeat))
            print(
                f"{name:>10}: person {person:8.1f} ms   agent {agent:8.1f} ms   ×{agent / person:.2f}"
            )


if __name__ == "__main__":
    main()
