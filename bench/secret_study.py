"""Secret scanner evaluation of issue 41, against a baseline tree in the same run.

Credentials by family, written the way four maintained scanners write their own test inputs
(gitleaks, trufflehog, Nosey Parker, detect-secrets: bench/secret_study_sets.py names what was
studied per family), values made fresh each run; false alarms on real text (this repository's
docs and commits, the installed packages' docs, docstrings, config files and code: see
bench/secret_eval.real_texts) and on generated look-alikes (bench/secret_study_text.py); scan
throughput over the real text. Each tree runs in its own process (bench/secret_study_worker.py):
this tree, and the baseline's memory/ extracted from git into a temporary folder.

    .venv/bin/python bench/secret_study.py [--baseline main] [--seed N] [--per-format 8]
        [--lines 4000] [--show 12]

Both doors are measured: `lint` (memory.secrets.scan of the text as a file holds it) and `note`
(memory.notes.clean_note refusing it); "doors disagree" counts texts where they differ.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.secret_eval import real_texts  # noqa: E402
from bench.secret_study_sets import Case, cases  # noqa: E402
from bench.secret_study_text import generated_texts  # noqa: E402

NOT_COVERED = """Not covered: credentials split across lines or files (a key id in one file, its secret in
another), values built at run time (concatenation, string formatting, base64 in code), secrets
in binary files and images, passwords that are ordinary words with no key word before them,
service keys whose only mark is the service's name with no key/secret/token word near them,
non-English key words (contraseña, mot de passe), and credentials whose format changed after the
rule sets studied. The real-text side reads only English text installed here (no real corpus of
other people's repositories is available offline)."""


class Tree:
    """A scanner in a child process (this tree's or a baseline's)."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        worker = ROOT / "bench" / "secret_study_worker.py"
        self.proc = subprocess.Popen(
            [sys.executable, str(worker)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert isinstance(stdin, IO) or stdin is not None
        assert stdout is not None
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        answer: dict[str, Any] = json.loads(stdout.readline())
        return answer

    def judge(self, texts: list[str]) -> tuple[list[bool], list[bool]]:
        out = self.ask({"judge": texts})
        return out["lint"], out["note"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def extract(rev: str, into: Path) -> Path:
    """`rev`'s memory/ package, extracted under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "memory"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _pct(hit: int, n: int) -> str:
    return f"{hit / n:6.1%}" if n else "     -"


def recall(trees: list[Tree], all_cases: list[Case], show: int) -> list[str]:
    texts = [c.text for c in all_cases]
    verdicts = {t.name: t.judge(texts) for t in trees}
    cols = [f"{t.name} {door}" for t in trees for door in ("lint", "note")]
    print(
        "\nRecall: credentials refused (fresh values, the studied scanners' ways of writing them)"
    )
    for label, key in (("family", "family"), ("source studied", "source")):
        rows: dict[str, list[int]] = defaultdict(lambda: [0] * (len(cols) + 1))
        for i, c in enumerate(all_cases):
            row = rows[getattr(c, key)]
            row[0] += 1
            for j, (lint, note) in enumerate(verdicts.values()):
                row[1 + 2 * j] += lint[i]
                row[2 + 2 * j] += note[i]
        total = [sum(r[k] for r in rows.values()) for k in range(len(cols) + 1)]
        print(f"  {label:34s} {'texts':>6s} " + " ".join(f"{c:>12s}" for c in cols))
        for name, row in [*sorted(rows.items()), ("all", total)]:
            print(
                f"  {name:34s} {row[0]:>6d} " + " ".join(f"{_pct(h, row[0]):>12s}" for h in row[1:])
            )
    now_lint, now_note = verdicts[trees[0].name]
    _syntax_table(all_cases, now_lint, show)
    missed = [c for c, hit in zip(all_cases, now_lint, strict=True) if not hit]
    by_fmt = Counter(f"{c.family} / {c.fmt} / {c.syntax}" for c in missed)
    print(f"  missed by {trees[0].name} (lint), most common first:")
    for where, n in by_fmt.most_common(show):
        example = next(c.text for c in missed if f"{c.family} / {c.fmt} / {c.syntax}" == where)
        print(f"    {n:3d}  {where}: {example[:120]!r}")
    return [c.text for c, a, b in zip(all_cases, now_lint, now_note, strict=True) if a != b]


def _syntax_table(all_cases: list[Case], hits: list[bool], show: int) -> None:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for c, hit in zip(all_cases, hits, strict=True):
        per[c.syntax][0] += 1
        per[c.syntax][1] += hit
    worst = sorted(per.items(), key=lambda kv: kv[1][1] / kv[1][0])
    print(f"  by syntax ({len(per)} kinds), the {show} weakest:")
    for syntax, (n, hit) in worst[:show]:
        print(f"    {syntax:40s} {n:5d} {_pct(hit, n)}")


def false_alarms(trees: list[Tree], texts: dict[str, list[str]], show: int) -> list[str]:
    print("\nFalse alarms: texts with no credential refused, per kind of text")
    cols = [f"{t.name} {door}" for t in trees for door in ("lint", "note")]
    print(f"  {'kind of text':56s} {'texts':>6s} " + " ".join(f"{c:>14s}" for c in cols))
    flagged: list[tuple[str, str]] = []
    disagree: list[str] = []
    totals = [0] * (len(cols) + 1)
    for kind, lines in texts.items():
        row = [len(lines)]
        for j, tree in enumerate(trees):
            lint, note = tree.judge(lines)
            row += [sum(lint), sum(note)]
            if j == 0:
                flagged += [(kind, t) for t, bad in zip(lines, lint, strict=True) if bad]
                disagree += [t for t, a, b in zip(lines, lint, note, strict=True) if a != b]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(
            f"  {kind[:56]:56s} {row[0]:>6d} "
            + " ".join(f"{n:>5d} ({_pct(n, row[0])})" for n in row[1:])
        )
    n = totals[0]
    print(f"  {'all':56s} {n:>6d} " + " ".join(f"{k:>5d} ({_pct(k, n)})" for k in totals[1:]))
    for kind, text in flagged[:show]:
        print(f"    {trees[0].name} flags [{kind}]: {text[:130]!r}")
    return disagree


def throughput(trees: list[Tree], texts: dict[str, list[str]]) -> None:
    whole = "\n".join(line for lines in texts.values() for line in lines)
    size = len(whole.encode())
    best = {t.name: (float("inf"), float("inf")) for t in trees}
    for _ in range(3):  # interleaved: each tree meets the same moments of a shared machine
        for tree in trees:
            out = tree.ask({"time": whole})
            wall, cpu = best[tree.name]
            best[tree.name] = (min(wall, out["wall"]), min(cpu, out["cpu"]))
    print(
        f"\nThroughput over the real text as one file ({size / 1e6:.1f} MB), best of 3, interleaved:"
    )
    for name, (wall, cpu) in best.items():
        print(f"  {name:10s} {size / wall / 1e6:6.2f} MB/s wall, {size / cpu / 1e6:6.2f} MB/s CPU")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default="main", help="a commit: its memory/ is measured too")
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"))
    parser.add_argument("--per-format", type=int, default=8)
    parser.add_argument("--lines", type=int, default=4000, help="lines per kind of real text")
    parser.add_argument("--show", type=int, default=12)
    args = parser.parse_args()
    r = random.Random(args.seed)
    base = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    print(f"seed {args.seed}; baseline {args.baseline} ({base}); load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        trees = [Tree("now", ROOT), Tree(args.baseline, extract(args.baseline, Path(tmp)))]
        try:
            all_cases = list(cases(r, args.per_format))
            disagree = recall(trees, all_cases, args.show)
            real = real_texts(r, args.lines)
            texts = {**real, **generated_texts(r, max(200, args.lines // 10))}
            disagree += false_alarms(trees, texts, args.show)
            print(f"\nDoors disagree (now: lint and note differ) on {len(disagree)} texts")
            for text in disagree[: args.show]:
                print(f"    {text[:140]!r}")
            throughput(trees, real)
        finally:
            for tree in trees:
                tree.close()
    print("\n" + NOT_COVERED)


if __name__ == "__main__":
    main()
