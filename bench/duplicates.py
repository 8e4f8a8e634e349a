"""Tidy's duplicate decisions per category and per public corpus, against main in the same run.

    .venv/bin/python bench/duplicates.py [--baseline 01120ec] [--corpus mrpc=PATH] \
        [--corpus sts=PATH] [--corpus sick=PATH] [--show STYLE]

Pairs: bench/duplicate_pairs.py (our own, by category: role swaps, negation, antonyms, voice,
numbers, near-synonyms, hedges, paraphrases, inflection and tense, the order of a list,
synonyms, abbreviations, one saying more, another identifier or number), tests/data/facts/
pairs.tsv (issue 13), and each public corpus passed with `--corpus` (bench/duplicate_corpora.py:
MRPC, the STS benchmark, SICK; read from files outside the repository, copied nowhere).

Each pair is decided as tidy decides a pair of entries in one memory (memory/dream/merge.py
`verdict`): the terms weighted by their rarity among every sentence of its set (the corpus is
the memory). "merged": provably one statement (merged without an LLM key); "offered": a possible
duplicate (the digest's Merge button, or Claude with a key). Printed per set, now and at
`--baseline` (main's code from `git archive`, run by this same file): same-meaning pairs merged,
merged or offered; different-meaning pairs merged (false merges) and offered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import baseline  # noqa: E402
from bench.duplicate_corpora import LOOK_ALIKE, read  # noqa: E402
from bench.duplicate_pairs import pairs as written_pairs  # noqa: E402

BASELINE = "01120ec"  # main before issue 40
PAIRS_TSV = ROOT / "tests" / "data" / "facts" / "pairs.tsv"
OURS = "ours"
# this file and what it imports, written over the baseline's copies so it measures the old code
BENCH_FILES = (
    "duplicates.py",
    "duplicate_corpora.py",
    "duplicate_pairs.py",
    "duplicate_subjects.py",
    "duplicate_opposed.py",
    "duplicate_reworded.py",
    "duplicate_variants.py",
)
Row = tuple[str, str, str, str]  # (style, label, a, b)


def own_pairs() -> list[Row]:
    rows = list(written_pairs())
    for line in PAIRS_TSV.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, a, b = line.split("\t")
            rows.append(("issue 13 set", "same" if kind == "same" else "different", a, b))
    return rows


def decide(sets: list[list[tuple[str, str]]]) -> list[list[str]]:
    """Tidy's verdict on each pair, each set of pairs one memory (its weights, where this
    tree's tidy weighs terms)."""
    from memory.dream import merge

    weights = getattr(merge, "Weights", None)
    out = []
    for pairs in sets:
        if weights is None:  # before issue 40: no weights
            out.append([merge.verdict(a, b)[0] for a, b in pairs])
            continue
        texts = [t for pair in pairs for t in pair]
        count = Counter(k for t in texts for k in set(merge._keys(t)))
        weight = weights({k: n for k, n in count.items() if n > 1}, len(texts))
        out.append([merge.verdict(a, b, weight)[0] for a, b in pairs])
    return out


def at_baseline(rev: str, sets: list[list[tuple[str, str]]]) -> list[list[str]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sets, f)
    line = baseline.run_at(rev, "duplicates.py", ["--emit", f.name], today=BENCH_FILES)
    Path(f.name).unlink()
    got: list[list[str]] = json.loads(line)
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--corpus", action="append", default=[], help="name=PATH (mrpc, sts, sick)")
    ap.add_argument("--show", default="", help="print the pairs of this style that went wrong")
    ap.add_argument("--emit", help=argparse.SUPPRESS)  # the baseline's run: decide, print JSON
    args = ap.parse_args()
    if args.emit:
        print(json.dumps(decide(json.loads(Path(args.emit).read_text()))))
        return
    named = {OURS: own_pairs()}
    for spec in args.corpus:
        name, rows = read(spec)
        named[name] = [(name, label, a, b) for label, a, b in rows]
    sets = [[(a, b) for _, _, a, b in rows] for rows in named.values()]
    now, old = decide(sets), at_baseline(args.baseline, sets)
    print(f"baseline {args.baseline} (main before issue 40) → this tree, in one run")
    _table(named, now, old, args.show)


def _table(
    named: dict[str, list[Row]], now: list[list[str]], old: list[list[str]], show: str
) -> None:
    n: Counter[tuple[str, str]] = Counter()
    got: Counter[tuple[str, str, str, str]] = Counter()
    for rows, v_now, v_old in zip(named.values(), now, old, strict=True):
        for (style, label, a, b), new, before in zip(rows, v_now, v_old, strict=True):
            for key in {style, "ALL ours" if style not in named else style}:
                n[key, label] += 1
                got[key, label, "now", new] += 1
                got[key, label, "old", before] += 1
            wrong = (label == "same") == (new == "different") or (
                label == "different" and new == "same"
            )
            if show in (style, "all") and wrong:
                print(f"  [{label}] {before} → {new}\n    {a}\n    {b}")
    head = f"{'set':<14}{'same':>5}{'diff':>5} | {'merged':>13} {'merged+offered':>15} | "
    head += f"{'false merges':>13} {'diff offered':>15}"
    print(head + "\n" + "-" * len(head))
    styles = sorted({k for k, _ in n if k not in named and k != "ALL ours"})
    for style in [*styles, "ALL ours", *[k for k in named if k != OURS]]:
        s, d = n[style, "same"], n[style, "different"]

        def pct(label: str, kinds: tuple[str, ...], total: int, key: str = style) -> str:
            return "→".join(
                _rate(sum(got[key, label, when, k] for k in kinds), total)
                for when in ("old", "now")
            )

        mark = " (look-alike)" if style in LOOK_ALIKE else ""
        print(
            f"{style:<14}{s:>5}{d:>5} | {pct('same', ('same',), s):>13} "
            f"{pct('same', ('same', 'possible'), s):>15} | {pct('different', ('same',), d):>13} "
            f"{pct('different', ('possible',), d):>15}{mark}"
        )
    print(
        "\nmerged: without an LLM key; offered: a possible duplicate (digest, or Claude); "
        "old→now.\nsame/diff: pairs of each label; sts leaves out scores from 3 to 4."
    )


def _rate(k: int, total: int) -> str:
    return f"{100 * k / total:.0f}%" if total else "-"


if __name__ == "__main__":
    main()
