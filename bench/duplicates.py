"""Tidy's duplicate merge on adversarial pairs, against the rule of the release before, same run.

    .venv/bin/python bench/duplicates.py [--baseline d686429] [--show STYLE]

Pairs: bench/duplicate_pairs.py (written for issue 26 in the styles of public paraphrase and
entailment corpora: role swaps, one-sided negation, antonyms, passive/active, numbers as words
and digits, near-synonyms, hedges, plain paraphrases) and tests/data/facts/pairs.tsv (issue 13).

Rules compared on every pair:
- baseline: tidy's rule at `--baseline` (memory/facts.py of that commit, read with `git show`:
  content words with Jaccard >= SAME and no conflict), merged without asking;
- now: tidy's decision on a candidate pair (memory/dream/merge.py `verdict`: far apart or
  about two things, else memory/facts/statements.py); "merged" = provably one statement (merged
  without an LLM key), "possible" = listed in the digest for a person (or Claude with a key).

Per style: false merges (different-meaning pairs merged) and recall (same-meaning pairs merged).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import baseline  # noqa: E402
from bench.duplicate_pairs import pairs as written_pairs  # noqa: E402
from memory.dream import merge  # noqa: E402
from memory.facts import statements  # noqa: E402

BASELINE = baseline.REV
PAIRS_TSV = ROOT / "tests" / "data" / "facts" / "pairs.tsv"


def baseline_rule(rev: str) -> Callable[[str, str], bool]:
    """memory/facts.py (now memory/facts/comparison.py) as of `rev`: its `same` is the former
    tidy rule."""
    same: Callable[[str, str], bool] = baseline.load("memory/facts.py", "facts_old", rev=rev).same
    return same


def all_pairs() -> list[tuple[str, str, str, str]]:
    rows = list(written_pairs())
    for line in PAIRS_TSV.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, a, b = line.split("\t")
            rows.append(("issue 13 set", "same" if kind == "same" else "different", a, b))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--show", default="", help="print the pairs of this style that went wrong")
    args = ap.parse_args()
    old = baseline_rule(args.baseline)
    rows = all_pairs()
    n: dict[tuple[str, str], int] = defaultdict(int)
    got: dict[tuple[str, str, str], int] = defaultdict(int)
    for style, label, a, b in rows:
        verdict, why = merge.verdict(a, b)
        for key in (style, "ALL"):
            n[key, label] += 1
            got[key, label, "old"] += old(a, b)
            got[key, label, "new"] += verdict == statements.SAME
            got[key, label, "possible"] += verdict == statements.POSSIBLE
        wrong = (label == "different") == (verdict == statements.SAME) or (
            label == "different" and old(a, b)
        )
        if args.show in (style, "all") and wrong:
            print(f"  [{label}] old={old(a, b)} new={verdict} ({why})\n    {a}\n    {b}")
    diff, same = sum(1 for r in rows if r[1] == "different"), sum(1 for r in rows if r[1] == "same")
    print(
        f"{len(rows)} pairs: {diff} different in meaning, {same} the same (baseline {args.baseline})"
    )
    head = f"{'style':<14}{'pairs':>6} | {'false merges: before':>21} {'now':>9} | "
    head += f"{'recall: before':>15} {'now':>9} {'+possible':>10}"
    print(head)
    print("-" * len(head))
    styles = [*sorted({r[0] for r in rows}, key=lambda s: (s == "issue 13 set", s)), "ALL"]
    for style in styles:
        d, s = n[style, "different"], n[style, "same"]
        fm_old, fm_new = got[style, "different", "old"], got[style, "different", "new"]
        r_old, r_new = got[style, "same", "old"], got[style, "same", "new"]
        r_pos = got[style, "same", "possible"]
        print(
            f"{style:<14}{d + s:>6} | {_rate(fm_old, d):>21} {_rate(fm_new, d):>9} | "
            f"{_rate(r_old, s):>15} {_rate(r_new, s):>9} {_rate(r_pos, s):>10}"
        )
    print(
        "\nfalse merges: different-meaning pairs merged without an LLM; recall: same-meaning "
        "pairs merged;\n+possible: same-meaning pairs listed as possible duplicates instead "
        "(a person's click or Claude merges them)."
    )


def _rate(k: int, total: int) -> str:
    return f"{100 * k / total:.1f}% ({k})" if total else "-"


if __name__ == "__main__":
    main()
