"""Claim recognition on the written corpus (tests/data/claims/corpus.tsv), against a baseline.

    .venv/bin/python bench/claims.py

Baseline: the same recogniser with only the explicit file forms (`owner/repo:path`, "in
owner/repo at path", blob URLs), as before loose file claims. Prints, for each: claims written,
recognised, recall, false claims (recognised but not written) and their share of all recognised.
Targets: recall ≥ 95%, false claims ≤ 2%.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.memory.dream.test_claims_corpus import corpus, score


def main() -> None:
    rows = corpus()
    negatives = sum(1 for e, _ in rows if not e)
    print(f"corpus: {len(rows)} entries, {negatives} negatives")
    print(
        f"{'recogniser':<22}{'written':>8}{'found':>7}{'recall':>8}{'false':>7}{'false %':>9}{'ms':>7}"
    )
    for name, loose in (("baseline (explicit)", False), ("people's phrasing", True)):
        t0 = time.perf_counter()
        written, found, false, _ = score(loose_files=loose)
        ms = (time.perf_counter() - t0) * 1000
        share = 100 * false / max(1, found + false)
        print(
            f"{name:<22}{written:>8}{found:>7}{100 * found / written:>7.1f}%{false:>7}"
            f"{share:>8.1f}%{ms:>7.0f}"
        )


if __name__ == "__main__":
    main()
