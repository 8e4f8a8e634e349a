"""Layout changes and titles the dream proposes: those a person would accept, and noise.

    .venv/bin/python bench/dream_layout.py [--seeds 1 2 3] [--show]

Generates a team's memory as months of sessions leave it (about 300 topic files in services/,
runbooks/, teams/, ops/ and the top folder, 3 to 9 entries each, links between them), then runs
a real dream (no LLM) and reads what the layout step proposes.

Planted, so what a person would accept: **merge** pairs whose names say one subject in one
folder (`deploy.md` / `deploys.md`, `on-call.md` / `oncall.md`, `payments-notes.md` /
`payments.md`); **split** files of three unrelated `## ` sections (Kafka, certificates,
holidays); **regroup** folders of 40+ files where 6 to 12 share a prefix (`ops/alert-*.md`);
**title** files named `notes.md`, `misc.md`, `untitled-2.md` holding entries about one subject
(accepted when the title names one of that subject's words).

Look-alikes, counted as noise when proposed: `api-v1.md` / `api-v2.md`; `services/payments.md`
/ `teams/payments.md` (two folders); a file of three sections about one subject (deploys to
staging, production, rollback); a folder of 40+ files where a prefix is the folder's own
convention for most of them (`teams/team-*.md`, over 90%); `todo.md`, a list of to-dos, whose
title says what it is. What is not covered: two files about one subject under different names
(`kubernetes.md` / `k8s.md`), files of several subjects without sections, and Claude's titles.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.dream.run import dream
from memory.git import Author, Store
from memory.trust import proposals
from memory.writes import WriteFile

SUBJECTS = {
    "checkout": ["the checkout vendor sandbox answers 504 under load",
                 "checkout retries vendor calls five times", "checkout timeouts live in config/vendor.toml",
                 "the checkout team owns the vendor contract"],
    "kafka": ["kafka brokers run on three nodes", "kafka topic retention is seven days",
              "kafka consumer lag alerts page at 10k messages"],
    "certificates": ["tls certificates renew through cert-manager",
                     "the wildcard certificate expires each March", "certificate renewals email security"],
    "holidays": ["no deploys on public holidays", "the office closes at Christmas",
                 "holiday rotas live in the shared calendar"],
    "elasticsearch": ["the elasticsearch cluster reindexes nightly at 02:00",
                      "elasticsearch snapshots go to the backups bucket",
                      "elasticsearch heap is 8g per node"],
    "billing": ["billing runs invoices on the first of the month", "billing retries failed cards twice",
                "billing exports go to the finance bucket"],
}  # fmt: skip
WORDS = [
    "api",
    "web",
    "worker",
    "search",
    "refunds",
    "ledger",
    "reports",
    "exports",
    "auth",
    "tokens",
    "queue",
    "cache",
]


def topic(rng: random.Random, name: str, n: int | None = None) -> str:
    lines = [f"# {name.replace('-', ' ').title()}", ""]
    for _ in range(n or rng.randint(3, 9)):
        a, b = rng.sample(WORDS, 2)
        lines.append(
            f"- the {a} service calls {b} through the {rng.choice(WORDS)} gateway {rng.randint(1, 99)}"
        )
    return "\n".join(lines) + "\n"


def sectioned(titles: list[str], rng: random.Random) -> str:
    out = ["# Platform", "", "What the platform team keeps.", ""]
    for t in titles:
        out += [f"## {t.title()}", ""] + [f"- {e}" for e in SUBJECTS.get(t, [f"{t} deploys need two approvals", f"{t} deploys go out from main", f"{t} deploys pause in the freeze"])] + [""]  # fmt: skip
    return "\n".join(out)


def generate(rng: random.Random) -> tuple[dict[str, str], dict[str, str]]:
    """The memory, and what each planted or look-alike file is (path → label)."""
    files: dict[str, str] = {}
    labels: dict[str, str] = {}
    for folder in ("services", "runbooks", "teams"):
        for i in range(rng.randint(20, 35)):
            files[f"{folder}/{rng.choice(WORDS)}-{i}.md"] = topic(rng, f"{folder} {i}")
    for a, b in (("runbooks/deploy.md", "runbooks/deploys.md"), ("teams/on-call.md", "teams/oncall.md"),
                 ("services/payments-notes.md", "services/payments.md")):  # fmt: skip
        files[a], files[b] = topic(rng, a), topic(rng, b)
        labels[a] = labels[b] = f"merge:{a}"
    for a, b in (
        ("services/api-v1.md", "services/api-v2.md"),
        ("services/ledger.md", "teams/ledger.md"),
    ):
        files[a], files[b] = topic(rng, a), topic(rng, b)
        labels[a] = labels[b] = "noise:look-alike names"
    files["teams/platform.md"] = sectioned(["kafka", "certificates", "holidays"], rng)
    labels["teams/platform.md"] = "split:teams/platform.md"
    files["runbooks/deploys-by-env.md"] = sectioned(["staging", "production", "rollback"], rng)
    labels["runbooks/deploys-by-env.md"] = "noise:one subject in sections"
    for i in range(rng.randint(34, 40)):
        files[f"ops/{rng.choice(WORDS)}{i}.md"] = topic(rng, f"ops {i}")
    for i in range(rng.randint(6, 12)):
        files[f"ops/alert-{WORDS[i]}.md"] = topic(rng, f"alert {WORDS[i]}")
        labels[f"ops/alert-{WORDS[i]}.md"] = "regroup:ops/alert"
    for i in range(44):
        files[f"people/team-{i}.md"] = topic(rng, f"team {i}")
        labels[f"people/team-{i}.md"] = "noise:the folder's convention"
    for name, subject in (
        ("notes.md", "checkout"),
        ("misc.md", "billing"),
        ("untitled-2.md", "elasticsearch"),
    ):
        files[name] = f"# {name[:-3].title()}\n\n" + "".join(f"- {e}\n" for e in SUBJECTS[subject])
        labels[name] = f"title:{subject}"
    files["todo.md"] = "# Todo\n\n- write the refunds runbook\n- move the cron jobs to celery beat\n- review the billing alerts\n"  # fmt: skip
    labels["todo.md"] = "noise:a title that says it"
    return files, labels


def run(seed: int, show: bool) -> dict[str, Counter[str]]:
    rng = random.Random(seed)
    files, labels = generate(rng)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "remote.git"), Path(tmp) / "data")
        store.init()
        store.write([WriteFile(p, t) for p, t in files.items()], author=Author("a", "a@x"), message="seed")  # fmt: skip
        dream(store, now=datetime(2026, 12, 1, 3))
        tree = {p: b.decode() for p, b in store.tree().items()}
    found = [p for p in proposals.pending(tree) if p.kind in ("merge", "split", "regroup", "title")]
    out: dict[str, Counter[str]] = defaultdict(Counter)
    planted = {v for v in labels.values() if not v.startswith("noise")}
    for label in planted:
        out[label.split(":")[0]]["planted"] += 1
    seen: set[str] = set()
    for p in found:
        meta = dict(p.meta)
        named = [p.path, *[x.strip() for x in meta.get("files", "").split(",") if x.strip()]]
        label = Counter(labels.get(x, "noise:unplanted") for x in named).most_common(1)[0][0]
        good = label.split(":")[0] == p.kind and label not in seen
        if p.kind == "title":
            good = good and label.split(":")[1] in p.text.lower()
        if good:
            seen.add(label)
            out[p.kind]["accepted"] += 1
        else:
            out["noise"][f"{p.kind}: {label.split(':', 1)[1]}"] += 1
        if show:
            print(f"  [{'accepted' if good else 'noise'}: {label}] {p.describe()[:150]}")
    for label in planted - seen:
        out[label.split(":")[0]]["missed"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    total: dict[str, Counter[str]] = defaultdict(Counter)
    for seed in args.seeds:
        by = run(seed, args.show)
        print(f"seed {seed}: " + json.dumps({k: dict(v) for k, v in by.items()}))
        for k, v in by.items():
            total[k].update(v)
    for kind in ("merge", "split", "regroup", "title"):
        c = total[kind]
        print(
            f"{kind:8} planted {c['planted']:2}  accepted {c['accepted']:2}  missed {c['missed']:2}"
        )
    noise = total["noise"]
    accepted = sum(total[k]["accepted"] for k in ("merge", "split", "regroup", "title"))
    made = accepted + sum(noise.values())
    print(f"noise    {sum(noise.values()):2} proposals: {dict(noise)}")
    print(f"precision {accepted}/{made} = {accepted / max(made, 1):.2f}")


if __name__ == "__main__":
    main()
