"""Time search over a generated 10,000-file / ~24 MB memory repository against `git grep` (and
`rg` when installed), in the same run, on the same queries: hippo's ranked search (the default)
and its all-words mode. Recall (do people find the note they mean?) is bench/recall.py.

    python bench/search.py [--files 10000] [--queries 200] [--seed 7] [--keep DIR] [--writes 50]

The repository is a real git repo in a temporary folder; the index is built from its HEAD tree
read with pygit2, as the store does. Prints build time, p50/p95/p99 per query and the ratios.
Then `--writes` one-note commits go through the store (a bare clone as its local remote), each
followed by a search: the first search after a commit (index updated from the tree diff) against
the same search on an index built afresh and `git grep` on the new commit, in the same run, and
the agreement with `git grep` once more after the writes.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from itertools import accumulate
from pathlib import Path

import pygit2

from memory import notes
from memory.format import lines as textlines
from memory.git import Author, Store
from memory.search import Hit, SearchIndex, parse_query


def _words(text: str) -> list[str]:
    return text.split()


# Frequent technical words (the head of the distribution); the tail is made of generated words.
CORE = _words(
    """api service deploy deploys deployed rollback cache redis postgres database query
queries timeout timeouts latency retry retries worker queue celery job jobs cron nightly migration
schema index table lock locks connection pool pods kubernetes helm chart config flag feature flags
release staging production sandbox vendor checkout payments billing invoice invoices refund
refunds customer customers tenant account accounts login auth oauth token session sessions webhook
webhooks slack github pull request review reviewer merge branch main tests flaky ci pipeline build
builds docker image registry memory cpu disk alert alerts pager oncall incident postmortem runbook
dashboard grafana metrics logs tracing sentry error errors exception throttle rate limit limits
quota backoff batch batches export import csv report reports search reindex shard replica failover
region dns tls certificate expiry owner team frontend backend mobile web console admin permission
permissions role roles audit compliance encryption key rotation vault terraform bucket lambda cdn
nginx gateway proxy balancer health readiness probe leak heap thread threads async event events
stream kafka topic consumer producer offset lag protobuf json yaml"""
)
GLUE = _words(
    """the a of to in on for with when after before is are was uses needs should must never
always only because so but not from by at via and or if then than"""
)
UNITS = ["ms", "s", "min", "MB", "GB", "%", "rps", "pods", "retries"]
ASPECTS = ["deploys", "incidents", "config", "ownership", "runbook", "alerts", "capacity", "api"]
SYLLABLES = _words("ka lo mi ne ru sa ti vo xe zu bra cle dri fro gly plo qua stri tho wex yon")


def words(rng: random.Random, n: int) -> list[str]:
    """A vocabulary of `n` made-up words: the long tail of rare terms."""
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(out)


class Corpus:
    """Zipf-distributed sentences over CORE (common) and a generated tail (rare)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tail = words(rng, 20_000)
        self.services = [f"{a}-{b}" for a in self.tail[:60] for b in ("api", "worker", "web")]
        # Cumulative weights, so each draw is a bisect rather than a pass over the vocabulary.
        self.core_w = list(accumulate(1 / (i + 1) ** 0.8 for i in range(len(CORE))))
        self.tail_w = list(accumulate(1 / (i + 1) for i in range(len(self.tail))))

    def sentence(self) -> str:
        rng = self.rng
        out = [rng.choice(self.services)] if rng.random() < 0.5 else []
        for _ in range(rng.randint(7, 17)):
            r = rng.random()
            if r < 0.35:
                out.append(rng.choice(GLUE))
            elif r < 0.8:
                out.append(rng.choices(CORE, cum_weights=self.core_w)[0])
            elif r < 0.93:
                out.append(rng.choices(self.tail, cum_weights=self.tail_w)[0])
            elif r < 0.97:
                out.append(f"{rng.randint(2, 900)} {rng.choice(UNITS)}")
            else:
                out.append(f"PAY-{rng.randint(1000, 99999)}")
        text = " ".join(out)
        return text[0].upper() + text[1:]

    def entry(self) -> str:
        rng = self.rng
        day = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"
        src = f"https://acme.slack.com/archives/C0{rng.randint(10**7, 10**8)}/p17{rng.randint(10**13, 10**14)}"
        meta = f"source: {src}; added: {day}; by: U0{rng.randint(10**7, 10**8)}"
        if rng.random() < 0.2:
            meta += f"; status: {rng.choice(['tentative', 'active'])}"
        return f"- {self.sentence()} [{meta}]"

    def file(self, title: str) -> str:
        body = [self.entry() for _ in range(self.rng.randint(5, 19))]
        if self.rng.random() < 0.3:
            body.insert(3, "")
            body.insert(4, " ".join(self.sentence() for _ in range(3)) + ".")
            body.insert(5, "")
        return f"# {title}\n\n" + "\n".join(body) + "\n"


def generate(root: Path, n_files: int, rng: random.Random) -> Corpus:
    """Write `n_files` memory files (plus MEMORY.md) under `root`."""
    corpus = Corpus(rng)
    paths: set[str] = set()
    while len(paths) < n_files - 1:
        kind = rng.random()
        tail = rng.choice(corpus.tail)
        if kind < 0.5:
            paths.add(f"services/{rng.choice(corpus.services)}/{tail}-{rng.choice(ASPECTS)}.md")
        elif kind < 0.65:
            paths.add(f"projects/{tail}.md")
        elif kind < 0.75:
            paths.add(
                f"daily/20{rng.randint(20, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}.md"
            )
        elif kind < 0.85:
            paths.add(f"conventions/acme/{tail}.md")
        else:
            paths.add(f"preferences/channels/{tail}.md")
    for path in sorted(paths):
        title = Path(path).stem.replace("-", " ").capitalize()
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(corpus.file(title))
    index = "\n".join(f"- [[{p[:-3]}]]" for p in sorted(paths)[:150])
    (root / "MEMORY.md").write_text(
        f"# Memory: acme\n\n- {corpus.sentence()}\n\n## Index\n{index}\n"
    )
    return corpus


def queries(corpus: Corpus, root: Path, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, query): common and rare words, two words, phrases lifted from real entries."""
    files = sorted(root.rglob("*.md"))
    out: list[tuple[str, str]] = []
    while len(out) < n:
        r = rng.random()
        if r < 0.25:
            out.append(("common word", rng.choice(CORE)))
        elif r < 0.4:
            out.append(("rare word", rng.choice(corpus.tail[:3000])))
        elif r < 0.6:
            out.append(("two common words", f"{rng.choice(CORE)} {rng.choice(CORE)}"))
        elif r < 0.75:
            out.append(("common + rare", f"{rng.choice(CORE)} {rng.choice(corpus.tail)}".title()))
        else:
            lines = textlines.split(files[rng.randrange(len(files))].read_bytes().decode())
            entries = [ln for ln in lines if ln.startswith("- ")]
            if not entries:
                continue
            ws = entries[rng.randrange(len(entries))][2:].split(" [")[0].split()
            k = rng.randint(2, 3)
            i = rng.randrange(max(1, len(ws) - k))
            phrase = f'"{" ".join(ws[i : i + k])}"'
            if r < 0.9:
                out.append(("phrase", phrase))
            else:
                out.append(("word + phrase", f"{rng.choice(CORE)} {phrase}"))
    return out


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def read_tree(root: Path) -> dict[str, bytes]:
    """path -> bytes of HEAD, as the store's `tree()` returns it."""
    repo = pygit2.Repository(str(root))
    out: dict[str, bytes] = {}

    def walk(tree: pygit2.Tree, prefix: str) -> None:
        for obj in tree:
            if obj.type == pygit2.GIT_OBJECT_TREE:
                walk(obj, f"{prefix}{obj.name}/")
            else:
                out[f"{prefix}{obj.name}"] = obj.data

    walk(repo.head.peel(pygit2.Commit).tree, "")
    return out


def grep_args(query: str) -> list[str]:
    """`git grep` arguments that AND the query's terms on one line."""
    args: list[str] = []
    for t in parse_query(query):
        args += (["--and"] if args else []) + ["-e", t.text.decode()]
    return args


def git_grep(root: Path, query: str, rev: str | None = None) -> str:
    """Lines path:line:text (rev:path:line:text with a `rev`, as in a bare repository)."""
    cmd = [
        "git",
        "-C",
        str(root),
        "grep",
        "-i",
        "-n",
        "-F",
        *grep_args(query),
        *([rev] if rev else []),
    ]
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def ripgrep(root: Path, query: str) -> str:
    """rg cannot AND terms on a line: it searches the longest term (a lower bound on its cost)."""
    term = max(parse_query(query), key=lambda t: len(t.text)).text.decode()
    return subprocess.run(
        ["rg", "-i", "-n", "-F", "-e", term, str(root)], capture_output=True, text=True
    ).stdout


def timed(fn: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    t0 = clock()
    fn()
    return (clock() - t0) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def report(rows: list[tuple[str, list[float]]], kinds: list[str]) -> None:
    print(f"{'ms per query':30} {'p50':>7} {'p95':>7} {'p99':>7} {'mean':>7}")
    for name, values in rows:
        print(
            f"{name:30} {pct(values, 50):7.1f} {pct(values, 95):7.1f} {pct(values, 99):7.1f}"
            f" {statistics.fmean(values):7.1f}"
        )
    ours = rows[0][1]
    for name, values in rows[1:]:
        print(f"ratio {name.split(' (')[0]} / hippo, p50: {pct(values, 50) / pct(ours, 50):.1f}x")
    print(f"\n{'p50 ms by kind (n)':30} " + " ".join(f"{n.split()[0]:>9}" for n, _ in rows))
    for kind in dict.fromkeys(kinds):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        cells = " ".join(f"{pct([v[i] for i in idx], 50):9.1f}" for _, v in rows)
        print(f"{kind + f' ({len(idx)})':30} {cells}")


def agreement(
    search: Callable[[str, int], list[Hit]], root: Path, qs: list[str], rev: str | None = None
) -> str:
    """Every line git grep finds (all terms on the line) must be among the hits of hippo's
    all-words mode (ranked search matches words, not parts of words as `git grep -F` does)."""
    want = found = 0
    skip = 1 if rev else 0
    for q in qs:
        lines = {
            tuple(ln.split(":", 2 + skip)[skip : 2 + skip])
            for ln in textlines.split(git_grep(root, q, rev))  # git's lines: line numbers agree
        }
        ours = {(h.path, str(h.line)) for h in search(q, 10**9)}
        want += len(lines)
        found += len(lines & ours)
    return f"{found}/{want} git grep lines also found by hippo on {len(qs)} queries"


def after_writes(root: Path, qs: list[str], n: int, rng: random.Random) -> None:
    """`n` notes saved through the store, each followed by one search (the first after the
    commit), timed against a fresh build of the index and `git grep` on the same commit."""
    remote = root / ".bench-remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(root), str(remote)], check=True)
    store = Store.open(str(remote), root / ".bench-data")
    store.sync()
    cold = timed(lambda: store.search(qs[0]))  # a new process: reads the tree, builds the index
    note, first, fresh, grep = [], [], [], []
    who = Author("bench", "bench@example.com")
    for i in range(n):
        q = qs[i % len(qs)]
        text = f"{rng.choice(CORE)} note {i} about {rng.choice(CORE)} {rng.choice(CORE)}"
        save = partial(notes.save_note, store, text, today="2026-12-01", author=who)
        note.append(timed(save))
        first.append(timed(partial(store.search, q, 20)))
        fresh.append(timed(lambda q=q: SearchIndex.build(store.tree()).search(q, 20)))
        grep.append(timed(partial(git_grep, remote, q, "main")))
    print(f"{n} one-note commits through the store; cold first search {cold:.0f} ms")
    print(f"note (save_note, local remote): p50 {pct(note, 50):.0f} ms, p99 {pct(note, 99):.0f} ms")
    rows = [
        ("first search after a commit", first),
        ("same, index built afresh", fresh),
        ("git grep on the new commit", grep),
    ]
    print(f"{'ms':30} {'p50':>7} {'p95':>7} {'p99':>7}")
    for name, values in rows:
        print(f"{name:30} {pct(values, 50):7.1f} {pct(values, 95):7.1f} {pct(values, 99):7.1f}")
    print(f"ratio fresh build / updated, p50: {pct(fresh, 50) / pct(first, 50):.1f}x")
    print(f"ratio git grep / updated, p50: {pct(grep, 50) / pct(first, 50):.1f}x")
    print(
        f"agreement after the writes: {agreement(partial(store.search, all_words=True), remote, qs[:25], 'main')}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    ap.add_argument("--writes", type=int, default=50, help="one-note commits, each then searched")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    tmp = None if opts.keep else tempfile.mkdtemp(prefix="hippo-bench-search-")
    root = opts.keep or Path(tmp or ".")
    try:
        t0 = time.perf_counter()
        root.mkdir(parents=True, exist_ok=True)
        corpus = generate(root, opts.files, rng)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-qm", "bench")
        gen_s = time.perf_counter() - t0
        kinds_qs = queries(corpus, root, opts.queries, rng)
        qs = [q for _, q in kinds_qs]

        t0 = time.perf_counter()
        tree = read_tree(root)
        read_ms = (time.perf_counter() - t0) * 1000
        size = sum(len(b) for b in tree.values())
        t0 = time.perf_counter()
        index = SearchIndex.build(tree)
        build_ms = (time.perf_counter() - t0) * 1000
        print(f"repository: {len(tree)} files, {size / 1e6:.1f} MB, generated in {gen_s:.1f} s")
        print(f"read tree (pygit2): {read_ms:.0f} ms; build index: {build_ms:.0f} ms")
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")

        t0 = time.perf_counter()
        index.search(qs[0])  # warm-up; builds the word index of ranked search
        print(
            f"word index (ranked search, first query): {(time.perf_counter() - t0) * 1000:.0f} ms"
        )
        rows = [("hippo SearchIndex.search", [timed(partial(index.search, q, 20)) for q in qs])]
        exact = partial(index.search, all_words=True)
        rows.append(("hippo all words", [timed(partial(exact, q, 20)) for q in qs]))
        # CPU time of the same queries: what they cost when other processes share the cores.
        cpu = [timed(partial(index.search, q, 20), time.process_time) for q in qs]
        rows.append(("git grep -i -n -F (AND)", [timed(partial(git_grep, root, q)) for q in qs]))
        if shutil.which("rg"):
            rows.append(
                ("rg -i -n -F (longest term)", [timed(partial(ripgrep, root, q)) for q in qs])
            )
        report(rows, [k for k, _ in kinds_qs])
        print(f"hippo CPU time per query: p50 {pct(cpu, 50):.1f} ms, p95 {pct(cpu, 95):.1f} ms")
        print(f"\nagreement: {agreement(exact, root, qs[:25])}")
        if opts.writes:
            print()
            after_writes(root, qs, opts.writes, rng)
        return 0
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
