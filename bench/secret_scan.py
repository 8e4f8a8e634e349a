"""Secret scanner benchmark: refusal rate on fresh fake credentials (every format of
tests/secret_corpus.py in every evasion), false positives on 10,000 realistic entries, and scan
throughput; the scanners before issue 12 (bench/secrets_baseline.py) and before issue 27
(main at d686429, from git history: bench/baseline.py) measured in the same run. bench/secret_eval.py measures recall per
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

from bench.baseline import secrets_before_i27  # noqa: E402
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


def measure(scanners: dict[str, Callable[[str], list[object]]], r_seed: int) -> None:
    r = random.Random(r_seed)
    cases = [(f, e, hide(make(r))) for f, make in FORMATS.items() for e, hide in EVASIONS.items()]
    entries = [entry(r) for _ in range(10_000)]
    whole = "\n".join(entries)
    size = len(whole.encode())
    # Timings interleaved, best of three rounds: on a shared machine the load moves within a
    # run, and each scanner should meet the same moments of it.
    per_entry = dict.fromkeys(scanners, float("inf"))
    as_file = dict.fromkeys(scanners, float("inf"))
    for _ in range(3):
        for name, scan in scanners.items():
            started = time.perf_counter()
            for e in entries:
                scan(e)
            per_entry[name] = min(per_entry[name], time.perf_counter() - started)
            started = time.perf_counter()
            scan(whole)
            as_file[name] = min(as_file[name], time.perf_counter() - started)
    for name, scan in scanners.items():
        missed = [f"{f} / {e}" for f, e, text in cases if not scan(text)]
        refused = len(cases) - len(missed)
        plain = [text for f, e, text in cases if e == "plain sentence"]
        refused_plain = sum(bool(scan(t)) for t in plain)
        flagged = sum(bool(scan(e)) for e in entries)
        print(
            f"{name:9s} refused {refused}/{len(cases)} ({refused / len(cases):.1%}); "
            f"formats as written {refused_plain}/{len(plain)}; "
            f"false positives {flagged}/10000 ({flagged / 100:.2f}%); "
            f"{per_entry[name] / len(entries) * 1e6:.0f} µs/entry; "
            f"{size / as_file[name] / 1e6:.1f} MB/s as one file"
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
    scanners = {
        "baseline": _baseline().scan,
        "before 27": secrets_before_i27().scan,
        "now": secrets.scan,
    }
    measure(scanners, seed)


if __name__ == "__main__":
    main()
