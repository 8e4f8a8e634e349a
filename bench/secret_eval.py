"""Secret scanner evaluation (issue 27): recall per credential family on fresh values made from
each format's documented shape (bench/secret_eval_creds.py), false positives per kind of real
text drawn at run time from this repository (docs, commit messages, lock files) and from the
packages installed in the venv (their README/METADATA, docs and docstrings, config files and
assignment lines), and throughput. The scanner before issue 27 (main at d686429, loaded from git history by bench/baseline.py) and
detect-secrets' own scan (default plugins, when installed) are measured on the same texts.

    .venv/bin/python bench/secret_eval.py [--seed N] [--per-format 20] [--lines 20000] [--show 5]

Every text is one entry, judged by memory.secrets.scan (what `hippo lint` reports; `hippo note`
asks memory.secrets.first of the same text made one line, also measured for the credentials).
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baseline import secrets_before_i27  # noqa: E402
from bench.secret_eval_creds import FAMILIES, lockfile_lines  # noqa: E402
from memory import secrets  # noqa: E402

Scan = Callable[[str], list[object]]
Batch = Callable[[list[str]], list[bool]]
SITE = Path(sysconfig.get_paths()["purelib"])
# Scanners' own docs show secrets on purpose; test folders hold fixtures, not documentation.
SKIP_PARTS = {"tests", "test", "testing", "detect_secrets", "_vendor", "vendor", "node_modules"}
KEYWORD = re.compile(
    r"(?i)(pass(word|wd)?|pwd|secret|token|api[_-]?key|credential|auth)\w*\W{0,3}[:=]"
)


def _baseline() -> ModuleType:
    return secrets_before_i27()


def _detect_secrets() -> Callable[[list[str]], list[bool]] | None:
    """detect-secrets' own scan (default plugins and filters, as `detect-secrets scan` runs them),
    over a batch of texts written to files: which of them it reports. None when not installed."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def scan_batch(texts: list[str]) -> list[bool]:
        with tempfile.TemporaryDirectory() as tmp:
            # One file of one-line texts (line number = index); multi-line texts one file each.
            single = [i for i, t in enumerate(texts) if "\n" not in t]
            multi = [i for i, t in enumerate(texts) if "\n" in t]
            lines = Path(tmp, "notes.txt")
            lines.write_text("\n".join(texts[i] for i in single) + "\n", "utf-8")
            for i in multi:
                Path(tmp, f"note{i}.txt").write_text(texts[i], "utf-8")
            found = [False] * len(texts)
            with default_settings():
                coll = SecretsCollection(root=tmp)
                coll.scan_files(*(str(p) for p in sorted(Path(tmp).iterdir())), num_processors=1)
                for filename, secret in coll:
                    if filename.endswith("notes.txt"):
                        found[single[secret.line_number - 1]] = True
                    else:
                        found[int(Path(filename).stem[4:])] = True
            return found

    return scan_batch


# -- real text ------------------------------------------------------------------------------------


def _files(base: Path, patterns: tuple[str, ...]) -> Iterator[Path]:
    for pattern in patterns:
        for path in sorted(base.rglob(pattern)):
            if not SKIP_PARTS.intersection(p.lower() for p in path.relative_to(base).parts):
                yield path


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if len(line.strip()) >= 8]


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _metadata_body(path: Path) -> str:
    text = _read(path)
    return text.split("\n\n", 1)[1] if "\n\n" in text else ""


def _docstrings(path: Path) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(_read(path))
        except (SyntaxError, ValueError):
            return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                out.append(doc)
    return out


def real_texts(r: random.Random, per_kind: int) -> dict[str, list[str]]:
    """Kind of text → lines (deduplicated, sampled to `per_kind`)."""
    kinds: dict[str, list[str]] = {}
    kinds["repo docs (markdown)"] = [
        line for p in _files(ROOT, ("*.md",)) if ".venv" not in p.parts for line in _lines(_read(p))
    ]
    log = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--format=%B"], capture_output=True, text=True, check=False
    ).stdout
    kinds["commit messages"] = _lines(log)
    kinds["package READMEs (METADATA)"] = [
        line for p in SITE.glob("*.dist-info/METADATA") for line in _lines(_metadata_body(p))
    ]
    kinds["package docs (.md/.rst/.txt)"] = [
        line
        for p in _files(SITE, ("*.md", "*.rst", "*.txt"))
        if ".dist-info" not in str(p) and "LICENSE" not in p.name.upper()
        for line in _lines(_read(p))
    ]
    py = list(_files(SITE, ("*.py",)))
    r.shuffle(py)
    py = py[:4000]
    kinds["docstrings"] = [line for p in py for doc in _docstrings(p) for line in _lines(doc)]
    config = [
        line
        for p in _files(SITE, ("*.ini", "*.cfg", "*.toml", "*.yaml", "*.yml", "*.conf", "*.json"))
        if p.stat().st_size < 2_000_000
        for line in _lines(_read(p))
    ]
    assignments = [
        line
        for kind in ("package READMEs (METADATA)", "package docs (.md/.rst/.txt)", "docstrings")
        for line in kinds[kind]
        if KEYWORD.search(line)
    ]
    code = [line for p in py for line in _lines(_read(p)) if KEYWORD.search(line)]
    kinds["config files"] = config
    kinds["config examples in docs (keyword = …)"] = assignments
    kinds["code lines naming a secret"] = code
    own_locks = [line for p in ROOT.glob("requirements*.lock") for line in _lines(_read(p))]
    kinds["lock files"] = own_locks + lockfile_lines(r, per_kind)
    out = {}
    for kind, lines in kinds.items():
        unique = sorted(set(lines))
        r.shuffle(unique)
        out[kind] = unique[:per_kind]
    return out


# -- measuring ------------------------------------------------------------------------------------


def recall(scanners: dict[str, Scan | Batch], r: random.Random, per_format: int, show: int) -> None:
    print("\nRecall: credentials refused, per family (fresh values; % of texts)")
    names = list(scanners)
    print(f"  {'family':28s} {'texts':>6s} " + " ".join(f"{n:>14s}" for n in names))
    totals = dict.fromkeys(names, 0)
    count = 0
    misses: dict[str, list[str]] = {}
    for family, formats in FAMILIES.items():
        texts = [(f, make(r)) for f, make in formats.items() for _ in range(per_format)]
        row = []
        for name, scan in scanners.items():
            hit = 0
            found = _batch(scan, [t for _, t in texts])
            for (fmt_name, text), ok in zip(texts, found, strict=True):
                if ok:
                    hit += 1
                elif name == "now":
                    misses.setdefault(f"{family} / {fmt_name}", []).append(text)
            totals[name] += hit
            row.append(f"{hit / len(texts):>14.1%}")
        count += len(texts)
        print(f"  {family:28s} {len(texts):>6d} " + " ".join(row))
    print(f"  {'all':28s} {count:>6d} " + " ".join(f"{totals[n] / count:>14.1%}" for n in names))
    if misses:
        print(f"  missed by now ({len(misses)} formats), e.g.:")
        for where, texts in list(misses.items())[: show * 4]:
            print(f"    {where}: {len(texts)}/{per_format}  {texts[0][:110]!r}")


def false_positives(
    scanners: dict[str, Scan | Batch], texts: dict[str, list[str]], show: int
) -> None:
    print("\nFalse positives: lines of real text refused, per kind of text")
    names = list(scanners)
    print(f"  {'kind of text':40s} {'lines':>7s} " + " ".join(f"{n:>16s}" for n in names))
    flagged_now: list[tuple[str, str]] = []
    total = dict.fromkeys(names, 0)
    count = 0
    for kind, lines in texts.items():
        row = []
        for name, scan in scanners.items():
            bad = [line for line, ok in zip(lines, _batch(scan, lines), strict=True) if ok]
            total[name] += len(bad)
            row.append(f"{len(bad):>6d} ({len(bad) / max(len(lines), 1):>6.2%})")
            if name == "now":
                flagged_now += [(kind, line) for line in bad]
        count += len(lines)
        print(f"  {kind:40s} {len(lines):>7d} " + " ".join(row))
    print(
        f"  {'all':40s} {count:>7d} "
        + " ".join(f"{total[n]:>6d} ({total[n] / count:>6.2%})" for n in names)
    )
    for kind, line in flagged_now[: show * 3]:
        hit = secrets.scan(line)[0]
        print(f"    now flags [{kind}] as {hit.kind}: {line[:140]!r}")


def _batch(scan: Scan | Batch, texts: list[str]) -> list[bool]:
    if getattr(scan, "__name__", "") == "scan_batch":
        return scan(texts)  # type: ignore[arg-type, return-value]
    return [bool(scan(t)) for t in texts]  # type: ignore[arg-type]


def throughput(scanners: dict[str, Scan | Batch], texts: dict[str, list[str]]) -> None:
    whole = "\n".join(line for lines in texts.values() for line in lines)
    size = len(whole.encode())
    print(
        f"\nThroughput over the real text as one file ({size / 1e6:.1f} MB), best of 3, interleaved:"
    )
    timed = {n: s for n, s in scanners.items() if n != "detect-secrets"}
    best = dict.fromkeys(timed, float("inf"))
    for _ in range(3):  # interleaved: each scanner meets the same moments of a shared machine
        for name, scan in timed.items():
            best[name] = min(best[name], _timed(scan, whole))  # type: ignore[arg-type]
    for name in timed:
        print(f"  {name:16s} {size / best[name] / 1e6:6.1f} MB/s")


def _timed(scan: Scan, text: str) -> float:
    started = time.perf_counter()
    scan(text)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"))
    parser.add_argument("--per-format", type=int, default=20)
    parser.add_argument("--lines", type=int, default=20_000, help="lines per kind of text")
    parser.add_argument("--show", type=int, default=5)
    parser.add_argument("--no-detect-secrets", action="store_true")
    args = parser.parse_args()
    r = random.Random(args.seed)
    print(f"seed {args.seed}; load {os.getloadavg()[0]:.1f}; site-packages {SITE}")
    before = _baseline()
    scanners: dict[str, Scan | Batch] = {"before #27": before.scan, "now": secrets.scan}
    note: Scan = lambda t: [k] if (k := secrets.first(" ".join(t.split()))) else []  # noqa: E731
    ds = None if args.no_detect_secrets else _detect_secrets()
    recall_scanners = dict(scanners, **{"now, as a note": note})
    if ds is not None:
        recall_scanners["detect-secrets"] = ds
        scanners["detect-secrets"] = ds
    recall(recall_scanners, r, args.per_format, args.show)
    texts = real_texts(r, args.lines)
    false_positives(scanners, texts, args.show)
    throughput(scanners, texts)


if __name__ == "__main__":
    main()
