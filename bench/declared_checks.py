"""What the checks a team declares cost a night before any verifier is asked: finding the entries
they select in a generated memory, against the built-in claim filter in the same run.

    .venv/bin/python bench/declared_checks.py [--files 10000] [--entries 7]

The memory: `--files` topic files of `--entries` prose entries each (half under services/), one
entry in 100 written for the checks. The checks: docs/DREAMING.md's example file (three checks,
one limited to services/*.md and a tag). Prints the seconds to find the selected files (the
re-check's filter, `Declared.selects`, over parsed files), the baseline (the built-in substring
filter corrections applies to every file: a repository, a URL, a link) and the claims found.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import format as fmt
from memory.dream.checks_file import PATH
from memory.dream.declared_checks import tonight

ROOT = Path(__file__).resolve().parents[1]

PROSE = "the deploy queue drains before we restart payments api version retries cache alert"
WORDS = PROSE.split(" ")
CLAIMS = (
    "the payments API is at version 3.{n} [tags: payments]",
    "payments retries {n} times",
    "latest CLI release is v2.{n}.0",
)


def memory(files: int, entries: int, rng: random.Random) -> dict[str, str]:
    tree: dict[str, str] = {}
    for i in range(files):
        lines = []
        for j in range(entries):
            if (i * entries + j) % 100 == 0:
                lines.append("- " + rng.choice(CLAIMS).format(n=j))
            else:
                lines.append(f"- {' '.join(rng.choices(WORDS, k=12))} {i} [added: 2026-11-01]")
        folder = "services" if i % 2 else "runbooks"
        tree[f"{folder}/f{i}.md"] = "# T\n\n" + "\n".join(lines) + "\n"
    docs = (ROOT / "docs" / "DREAMING.md").read_text()
    tree[PATH] = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    return tree


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=7)
    args = parser.parse_args()
    tree = memory(args.files, args.entries, random.Random(1))
    docs = {p: fmt.parse(t) for p, t in tree.items() if p.endswith(".md")}
    declared, problems = tonight(tree)
    assert not problems, problems
    t0 = time.perf_counter()
    built_in = [p for p in docs if any(m in tree[p] for m in ("/", "slack.com", "[["))]
    t1 = time.perf_counter()
    selected = [p for p, d in docs.items() if declared.selects(p, d.entries)]
    t2 = time.perf_counter()
    claims = sum(len(declared.claims(p, e)) for p in selected for e in docs[p].entries)
    print(f"{len(docs)} files of {args.entries} entries, {len(declared.checks)} declared checks")
    print(f"baseline (built-in filter): {t1 - t0:.3f} s, {len(built_in)} files")
    print(f"declared checks (selects):  {t2 - t1:.3f} s, {len(selected)} files, {claims} claims")


if __name__ == "__main__":
    main()
