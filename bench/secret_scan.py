"""Secret scanner benchmark: refusal rate on fresh fake credentials (every format of
tests/secret_corpus.py in every evasion), false positives on 10,000 realistic entries, and scan
throughput; the scanners before issue 12 (bench/secrets_baseline.py) and before issue 27
(bench/secrets_before_i27.py) measured in the same run. bench/secret_eval.py measures recall per
credential family and false positives on real documentation.

    .venv/bin/python bench/secret_scan.py [--seed N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the corpus lives beside the tests

from memory import secrets  # noqa: E402
from tests.secret_corpus import EVASIONS, FORMATS, entry  # noqa: E402


def _baseline(name: str = "secrets_baseline") -> ModuleType:
    """bench/<name>.py, an earlier scanner, loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


Scanner = Callable[[str], object]


def measure(name: str, scan: Callable[[str], list[object]], r_seed: int) -> None:
    r = random.Random(r_seed)
    cases = [(f, e, hide(make(r))) for f, make in FORMATS.items() for e, hide in EVASIONS.items()]
    entries = [entry(r) for _ in range(10_000)]
    missed = [f"{f} / {e}" for f, e, text in cases if not scan(text)]
    refused = len(cases) - len(missed)
    plain = [text for f, e, text in cases if e == "plain sentence"]
    refused_plain = sum(bool(scan(t)) for t in plain)
    flagged = sum(bool(scan(e)) for e in entries)
    started = time.perf_counter()
    for e in entries:
        scan(e)
    per_entry = time.perf_counter() - started
    whole = "\n".join(entries)
    started = time.perf_counter()
    scan(whole)
    as_file = time.perf_counter() - started
    size = len(whole.encode())
    print(
        f"{name:9s} refused {refused}/{len(cases)} ({refused / len(cases):.1%}); "
        f"formats as written {refused_plain}/{len(plain)}; "
        f"false positives {flagged}/10000 ({flagged / 100:.2f}%); "
        f"{per_entry / len(entries) * 1e6:.0f} µs/entry; "
        f"{size / as_file / 1e6:.1f} MB/s as one file"
    )
    if name == "now" and missed:
        print("          missed: " + "; ".join(missed))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"))
    seed = parser.parse_args().seed
    print(
        f"{len(FORMATS)} formats x {len(EVASIONS)} evasions, fresh values (seed {seed}); load {os.getloadavg()[0]:.1f}"
    )
    measure("baseline", _baseline().scan, seed)
    measure("before 27", _baseline("secrets_before_i27").scan, seed)
    measure("now", secrets.scan, seed)


if __name__ == "__main__":
    main()
