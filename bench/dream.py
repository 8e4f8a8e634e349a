"""Dream over a generated memory repository, without an LLM and without network.

    .venv/bin/python bench/dream.py [--files 1000 10000 100000] [--seed 7] [--baseline d686429]

For each size: a repository of topic files with realistic entries (claims about pull requests,
files, repositories, Slack messages; prose), duplicates across files, broken links, short-lived
entries, lessons, a full inbox and a day of episodes. Verifiers are fake: a table answering from
the generated ground truth. Prints the time of each step, the total, and how many claims went to
the verifiers (bounded by the 25-file cap whatever the size), and where the time goes by phase:
`load` (reading the tree, finding the repositories it names), `checks` (corrections' work),
`tidy` (expiry, links, inbox, duplicates), `index`, `other` (daily, outcomes), `write` (every
commit through the write path: validation, secret scan, staging, push) and `parse` (parsing
markdown, wherever it happens: it is part of the phases before it). The repository is committed
with pygit2 in one commit (fast at 100,000 files); the dream runs in a child process, which
reports its CPU (`dream_cpu_s`) and its peak resident memory (`dream_rss_mb`, imports and the
store's caches included; `text_mb` is the memory's text). `--baseline d686429 …` first
runs this same bench file on each release (its files from `git archive`, in a temporary
directory), for a comparison in one run.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baseline import REV, run_at
from memory import format as fmt
from memory.dream.run import dream
from memory.dream.state import PATH as STATE
from memory.dream.state import State
from memory.dream.verifiers import Verdict, Verifiers
from memory.git.store import Store

try:
    from memory.dream.checkable_claims import PATH, PR, REPO, SLACK, SYMBOL
    from memory.git.batch import Author
except ImportError:  # `--baseline`: the names these had in releases before the moves
    from memory.dream.claims import PATH, PR, REPO, SLACK, SYMBOL  # type: ignore[no-redef]
    from memory.git.request import Author  # type: ignore[no-redef]
try:
    import memory.git.prepared as prepared
except ImportError:  # releases before it: every step's write went through Store.write
    prepared = None  # type: ignore[assignment]

FOLDERS = ("services", "teams", "runbooks", "decisions", "incidents", "vendors", "libraries")
WORDS = [
    "checkout",
    "billing",
    "ledger",
    "search",
    "gateway",
    "auth",
    "invoices",
    "payouts",
    "webhooks",
    "cache",
    "queue",
    "scheduler",
    "exporter",
    "importer",
    "reports",
    "mobile",
    "android",
    "ios",
    "partner",
    "sandbox",
    "staging",
    "canary",
    "rollout",
    "migration",
    "schema",
    "index",
    "replica",
    "shard",
    "budget",
    "alerting",
    "paging",
    "oncall",
    "latency",
]
PROSE = (
    "{a} {b} timeouts come from the {c} under parallel load",
    "the {a} team owns {b} alerts after 18:00 UTC",
    "deploys of {a} need a {b} review before noon",
    "{a} retries are safe because {b} requests carry idempotency keys",
    "the {a} dashboard shows {b} p99 latency per region",
    "never restart {a} during the {b} batch window",
)
CLAIMS = (
    "the {a} fix is acme/{b}#{n} which is open",
    "{a} settings live in acme/{b}:src/{a}/settings.py",
    "`load_{a}` is defined in acme/{b}:src/{a}/loader.py",
    "the acme/{a}-legacy repo is archived",
    "agreed in https://acme.slack.com/archives/C0{n}/p1700000{n:05d}0100",
)
ALICE = Author("bench", "bench@example.com")


def sentence(rng: random.Random, templates: tuple[str, ...]) -> str:
    # names like "billing-417": a team's vocabulary is large, so facts rarely collide by chance
    a, b, c = (f"{w}-{rng.randint(1, 999)}" for w in rng.sample(WORDS, 3))
    return rng.choice(templates).format(a=a, b=b, c=c, n=rng.randint(1, 9999))


def generate(n_files: int, rng: random.Random) -> dict[str, str]:
    files: dict[str, str] = {}
    paths = [f"{rng.choice(FOLDERS)}/{rng.choice(WORDS)}-{i}.md" for i in range(n_files)]
    pool: list[str] = []
    for path in paths:
        lines = [f"# {path.rsplit('/', 1)[1][:-3].replace('-', ' ').title()}: notes", ""]
        for _ in range(rng.randint(4, 9)):
            roll = rng.random()
            if roll < 0.02 and pool:
                text = rng.choice(pool)  # a duplicate of an entry elsewhere
            elif roll < 0.35:
                text = sentence(rng, CLAIMS)
            else:
                text = sentence(rng, PROSE)
            pool.append(text)
            meta = f"source: https://acme.slack.com/archives/C1/p{rng.randint(10**15, 10**16 - 1)}"
            added = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"
            if rng.random() < 0.005:
                meta += "; scope: short-lived"
            lines.append(f"- {text} [{meta}; added: {added}]")
        if rng.random() < 0.05:
            lines.append(f"- see also [[{rng.choice(FOLDERS)}/missing-{rng.randint(1, 999)}]]")
        elif rng.random() < 0.2:
            lines.append(f"- related: [[{rng.choice(paths)[:-3]}]]")
        files[path] = "\n".join(lines) + "\n"
    for i in range(max(5, n_files // 100)):
        sig = f"edit py +{rng.choice(WORDS)}"
        files[f"conventions/acme/repo{i}.md"] = (
            f"# Conventions: acme/repo{i}\n\n"
            f"- Observed: people add a check [source: https://g/{i}/1; added: 2026-11-01; "
            f"status: tentative; signature: {sig}]\n"
            f"- Observed: people add the check [source: https://g/{i}/2; added: 2026-11-09; "
            f"status: tentative; signature: {sig}]\n"
        )
    inbox = ["# Inbox: notes not yet filed under a topic", ""]
    topic_names = [p.rsplit("/", 1)[1][:-3] for p in paths]
    for i in range(500):
        about = f" for {rng.choice(topic_names)}" if i % 2 else ""  # half name their topic
        inbox.append(f"- {sentence(rng, PROSE)}{about} [added: 2026-11-2{rng.randint(0, 9)}]")
    files["inbox.md"] = "\n".join(inbox) + "\n"
    episodes = [
        json.dumps({"type": "thread_summary", "at": f"2026-11-29T{h % 24:02d}:00:00+00:00",
                    "summary": sentence(rng, PROSE), "source": f"https://acme.slack.com/x/{h}"})
        for h in range(200)
    ]  # fmt: skip
    files["archive/2026-11-29.jsonl"] = "\n".join(episodes) + "\n"
    files["MEMORY.md"] = "# Memory: acme\n\n- ask #platform before Friday deploys\n\n## Index\n"
    return files


class Truth:
    """A verifier (name, kinds, check) answering from a table: most claims true, some fixable,
    some gone (no network); it records every claim it was asked."""

    def __init__(self, rng: random.Random) -> None:
        self.name, self.kinds, self.rng = "table", frozenset([PR, PATH, SYMBOL, REPO, SLACK]), rng
        self.seen: list[object] = []

    def check(self, claim):  # type: ignore[no-untyped-def]
        self.seen.append(claim)
        roll = self.rng.random()
        if roll < 0.7:
            return Verdict.true("the table says so")
        if roll < 0.85 and claim.kind in (PR, REPO):
            return Verdict.fixable("merged" if claim.kind == PR else "active", "table: changed")
        if roll < 0.95:
            return Verdict.unfixable("table: gone")
        return Verdict.unknown("table: no answer")


def fake_verifiers(rng: random.Random) -> tuple[Verifiers, Truth]:
    truth = Truth(rng)
    return Verifiers([truth]), truth


class Phases:
    """Seconds spent in the write path (per step) and in parsing, measured by wrapping
    `Store.write`, `prepared.write` (a step's commit of what the dream applied: the store's part)
    and `format.parse` for the bench run (the code under test is unchanged)."""

    def __init__(self) -> None:
        self.write: dict[str, float] = {}
        self.parse = 0.0

    def __enter__(self) -> Phases:
        self.saved = Store.write, fmt.parse
        write, parse = self.saved

        def timed(write):  # type: ignore[no-untyped-def]
            def timed_write(store, ops, **kw):  # type: ignore[no-untyped-def]
                t0 = time.perf_counter()
                try:
                    return write(store, ops, **kw)
                finally:
                    step = str(kw.get("message", "")).split(")", 1)[0].removeprefix("dream(")
                    self.write[step] = self.write.get(step, 0.0) + time.perf_counter() - t0

            return timed_write

        def timed_parse(*args, **kw):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            try:
                return parse(*args, **kw)
            finally:
                self.parse += time.perf_counter() - t0

        Store.write, fmt.parse = timed(write), timed_parse  # type: ignore[method-assign,assignment]
        if prepared is not None:  # a step's commit of what the dream applied (not in releases)
            self.prepared_write = prepared.write
            prepared.write = timed(prepared.write)
        return self

    def __exit__(self, *exc: object) -> None:
        Store.write, fmt.parse = self.saved  # type: ignore[method-assign]
        if prepared is not None:
            prepared.write = self.prepared_write  # type: ignore[assignment]

    def table(self, total: float, steps: dict[str, float]) -> dict[str, float]:
        def compute(step: str) -> float:
            return steps.get(step, 0.0) - self.write.get(step, 0.0)

        out = {
            "load": total - sum(steps.values()),
            "checks": compute("corrections"),
            "tidy": compute("tidy"),
            "index": compute("index"),
            "other": compute("daily") + compute("outcomes") + compute("state"),
            "write": sum(self.write.values()),
            "parse": self.parse,
        }
        return {k: round(v, 2) for k, v in out.items()}


def setup(files: dict[str, str], tmp: Path) -> Store:
    """A memory repository holding `files`: `hippo init`, then one commit made with pygit2 (the
    write path's checks on 100,000 generated files took minutes and measure nothing here)."""
    store = Store.open(str(tmp / "remote.git"), tmp / "data")
    store.init()
    remote = pygit2.Repository(str(tmp / "remote.git"))
    parent = remote.references["refs/heads/main"].target
    index = pygit2.Index()
    index.read_tree(remote[parent].peel(pygit2.Commit).tree)
    for path, text in files.items():
        index.add(
            pygit2.IndexEntry(path, remote.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB)
        )
    tree = index.write_tree(remote)
    who = pygit2.Signature(ALICE.name, ALICE.email)
    commit = remote.create_commit(None, who, who, "bench: generated memory\n", tree, [parent])
    remote.references["refs/heads/main"].set_target(commit)
    store.sync()
    return store


def bench(n_files: int, seed: int) -> dict[str, object]:
    """Generate and commit the memory here; dream over it in a child process (its own peak RSS
    and CPU), which continues this random stream (verifiers, recall counts) where it stands."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(n_files, rng)
        t0 = time.perf_counter()
        setup(files, Path(tmp))
        took = time.perf_counter() - t0
        topics = [p for p in files if p.endswith(".md") and "/" in p]
        state = pickle.dumps((rng.getstate(), topics))
        n, text_mb = len(files), sum(len(t.encode()) for t in files.values()) / 2**20
        del files
        child = subprocess.run(
            [sys.executable, __file__, "--dream-in", tmp],
            input=state,
            capture_output=True,
        )
        if child.returncode:
            raise SystemExit(child.stderr.decode())
        measured = json.loads(child.stdout.decode().strip().splitlines()[-1])
    return {"files": n, "text_mb": round(text_mb, 1), "setup_s": round(took, 1), **measured}


def dream_in(tmp: Path) -> dict[str, object]:
    """The dream over the repository `setup` made in `tmp` (the parent's random state on stdin)."""
    rng_state, topics = pickle.loads(sys.stdin.buffer.read())
    rng = random.Random()
    rng.setstate(rng_state)
    store = Store.open(str(tmp / "remote.git"), tmp / "data")
    verifiers, truth = fake_verifiers(rng)
    t0, c0 = time.perf_counter(), time.process_time()
    # recall counts as search, the console and MCP keep them: a few files are read a lot
    recall = {p: rng.randint(1, 50) for p in rng.sample(topics, min(200, len(topics)))}
    with Phases() as phases:
        night = datetime(2026, 11, 30, 3, 0)
        report = dream(store, now=night, verifiers=verifiers, recall=recall)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    seconds = {s.step: s.seconds for s in report.steps}
    steps = {k: round(v, 2) for k, v in seconds.items()}
    return {
        "dream_s": round(total, 2),
        "dream_cpu_s": round(cpu, 2),  # this process only: the rest is waiting on the cores
        # the dream's process at its peak (Linux: kB), imports and the store's caches included
        "dream_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "steps_s": steps,
        "phases_s": phases.table(total, seconds),
        "claims_to_verifiers": verifiers.calls,
        "files_checked": len(State.load(store.read(STATE)).checked),
        "claims_seen_by_table": len(truth.seen),
        "deleted": report.deleted,
        "cap": report.cap,
        "deferred": len(report.deferred),
        "index_lines": store.read("MEMORY.md").count("\n"),
        "index_bytes": len(store.read("MEMORY.md").encode()),
        "commits": len(report.commits),
    }


def baseline(rev: str, n_files: int, seed: int) -> str:
    """This bench, same size and seed, run on the release `rev`'s code: its JSON line."""
    return run_at(rev, "dream.py", ["--files", str(n_files), "--seed", str(seed)], ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dream-in", type=Path, help=argparse.SUPPRESS)  # the child's part
    parser.add_argument(
        "--baseline",
        nargs="*",
        default=[],
        help=f"also run these releases (the one before issue 26 is {REV}) the same way",
    )
    args = parser.parse_args()
    if args.dream_in is not None:
        print(json.dumps(dream_in(args.dream_in)), flush=True)
        return
    for n in args.files:
        for rev in args.baseline:
            print(f"{rev}: {baseline(rev, n, args.seed)}", flush=True)
        print(f"this tree: {json.dumps(bench(n, args.seed))}", flush=True)


if __name__ == "__main__":
    main()
