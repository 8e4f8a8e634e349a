"""Time the quality gate on the generated 10,000-file memory (bench/search.py's).

    python bench/gate.py [--files 10000] [--entries 300] [--agents 500] [--seed 7]

1. The contradiction check per landed entry, as MCP `writeMemory` runs it: `Gate.apply` on one
   AddEntry, reading the target file through hippo's Store (warm tree). The entries land in
   random topic files: a third restate an entry there in other words (confirm), a third change
   its number (contradict), a third are new sentences. Reported: ms per entry and the verdicts.
2. The dream's promotion pass (`memory/dream/promote.py`) over the whole tree, after `--agents`
   files got an agent's tentative entry (half of them with a second thread as evidence).
3. Independent notes of one shape (`--incidents` incident reports with different ids, services,
   durations and causes) written one after another into one file, each checked against those
   before it: every "contradict" or "refine" is false. Then each incident restated with another
   duration: every one should be a contradiction. Today's check against the release before
   (bench/baseline.py), same notes, same run.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root holds `bench`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import Corpus, generate, git, pct
from memory import format as fmt
from memory.dream.context import Context
from memory.dream.promote import promote
from memory.dream.state import State
from memory.git import Store
from memory.trust.agent_gate import Gate
from memory.writes import AddEntry

THREAD = "https://acme.slack.com/archives/C0BENCH/p17000000000{:05d}"


def variant(text: str, rng: random.Random, corpus: Corpus) -> tuple[str, str]:
    """(expected verdict, entry text) for a new entry landing beside `text`."""
    r = rng.random()
    if r < 1 / 3:
        return "confirm", text.lower()
    if r < 2 / 3 and re.search(r"\d+", text):
        return "contradict", re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), text, count=1)
    return "new", corpus.sentence()


def landing(store: Store, corpus: Corpus, rng: random.Random, n: int) -> None:
    topics = [p for p in store.files() if p.startswith(("services/", "projects/"))]
    times: list[float] = []
    verdicts: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    for i in range(n):
        path = rng.choice(topics)
        entries = fmt.parse(store.read(path)).entries
        want, text = variant(rng.choice(entries).text, rng, corpus)
        expected[want] += 1
        gate = Gate()
        op = AddEntry(path, text, (("source", THREAD.format(i)),))
        t0 = time.perf_counter()
        gate.apply([op], store.read_or_none)
        times.append((time.perf_counter() - t0) * 1000)
        verdicts[gate.landed[0].verdict] += 1
    print(f"contradiction check per landed entry ({n}): p50 {pct(times, 50):.2f} ms, "
          f"p95 {pct(times, 95):.2f} ms, max {max(times):.1f} ms")  # fmt: skip
    print(f"  made as: {dict(expected)}; verdicts: {dict(verdicts)}")


def dream_pass(store: Store, rng: random.Random, agents: int) -> None:
    tree = {p: b.decode("utf-8", "replace") for p, b in store.tree().items()}
    topics = sorted(p for p in tree if p.startswith(("services/", "projects/")))
    for i, path in enumerate(rng.sample(topics, min(agents, len(topics)))):
        extra = f"; evidence: {THREAD.format(90000 + i)}" if i % 2 else ""
        meta = f"source: {THREAD.format(i)}{extra}; by: hippo for U1; kind: fact; status: tentative"
        tree[path] += f"- an agent learned fact number {i} about {path} [{meta}]\n"
    ctx = Context(run_id="bench", today=date(2026, 12, 1), tree=tree, state=State())
    t0 = time.perf_counter()
    done = promote(ctx)
    seconds = time.perf_counter() - t0
    print(f"dream promotion pass over {len(tree)} files ({agents} agents' entries): "
          f"{seconds * 1000:.0f} ms; {len(done.activated)} promoted")  # fmt: skip


SERVICES = ("checkout-api", "billing", "ledger", "search", "gateway", "payouts", "auth", "cdn")
CAUSES = ("a bad deploy", "an expired certificate", "a full disk", "a vendor outage",
          "a config push", "a DNS change")  # fmt: skip


def incident(i: int, rng: random.Random, minutes: int | None = None) -> str:
    rng2 = random.Random(i)  # the same incident's service and cause every time it is written
    service, cause = rng2.choice(SERVICES), rng2.choice(CAUSES)
    minutes = minutes if minutes is not None else rng2.randint(3, 90)
    return f"incident INC-{1000 + i}: {service} was down for {minutes} minutes after {cause}"


def incidents(n: int, rng: random.Random) -> None:
    """False contradictions among independent incident notes, and true ones, before and now."""
    from bench import baseline
    from memory.facts import contradictions as cx

    old_facts = baseline.load("memory/facts.py", "facts_gate_old")
    old = baseline.load(
        "memory/contradictions.py",
        "cx_old",
        {"from memory import facts\n": "import facts_gate_old as facts\n"},
    )
    for name, check in (("before", old.check), ("now", cx.check)):
        landed: list[fmt.Entry] = []
        verdicts: Counter[str] = Counter()
        for i in range(n):
            text = incident(i, rng)
            verdicts[check(text, landed).verdict] += 1
            landed.append(fmt.Entry(line=i, indent=0, marker="-", text=text, meta=()))
        caught = 0
        for i in range(n):
            want = incident(i, rng)
            minutes = int(re.findall(r"for (\d+) minutes", want)[0]) + 7
            caught += check(incident(i, rng, minutes), landed).verdict == "contradict"
        wrong = verdicts["contradict"] + verdicts["refine"]
        print(f"  {name:<6}: {n} independent incident notes: {verdicts['contradict']} marked "
              f"contradicting, {verdicts['refine']} refining ({100 * wrong / n:.1f}% false); "
              f"the same incidents restated with another duration: {caught} of {n} "
              "caught as contradictions")  # fmt: skip
    del old_facts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--entries", type=int, default=300)
    ap.add_argument("--agents", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--incidents", type=int, default=1000)
    ap.add_argument("--only-incidents", action="store_true")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    print("contradiction check on independent notes of one shape (no LLM):")
    incidents(opts.incidents, rng)
    if opts.only_incidents:
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="hippo-bench-gate-"))
    try:
        root = tmp / "work"
        root.mkdir(parents=True)
        corpus = generate(root, opts.files, rng)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-qm", "bench")
        remote = str(tmp / "remote.git")
        subprocess.run(["git", "clone", "-q", "--bare", str(root), remote], check=True)
        store = Store.open(remote, tmp / "data", workspace="bench")
        store.sync()
        store.tree()  # warm, as a web or MCP process is
        print(f"memory: {len(store.files())} files")
        landing(store, corpus, rng, opts.entries)
        dream_pass(store, rng, opts.agents)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
