"""Lessons the dream proposes from a month of sessions: those a person would accept, and noise.

    .venv/bin/python bench/dream_lessons.py [--seeds 1 2 3] [--show]

Generates a month (30 days) of `archive/*.jsonl` for one team: about 6 sessions a day of agents
(claude-code, cursor: JSON lines with a summary, commands, errors, files changed, an outcome,
stamped `role: agent` as the write path stamps them) and Slack threads (a question, the files
read), then lives it: each day's archive is written and that night's dream runs (no LLM; each night
reads the last 30 days, at most 10 proposals a night), and the lessons proposed over the month
are read from `proposals.md` (nobody accepts or drops any meanwhile).

What is planted, and so what a person would accept (the labels live beside the archive, by
archive line; the dream never sees them):

- **error** recurrences: one error met in 2 to 4 sessions on different days, in other words each
  time (the error in `errors`, or only in the summary's prose), most with the fix the last one
  found. The error texts are the tools' own messages as public issue threads report them
  (psycopg2's ModuleNotFoundError and its "connection refused", git's "refusing to merge
  unrelated histories", npm's ERESOLVE, Kubernetes' OOMKilled / exit code 137, Docker's "pull
  access denied"; e.g. MultiQC/MegaQC#126, desktop/desktop#1308, npm/cli#3236,
  kubernetes/kubernetes#19825, moby/moby#36915, read through the search tool, not copied);
- **fix** recurrences: the same change made in 2 or 3 sessions (a timeout raised in one
  config file, a version pinned in one manifest), in other words each time;
- **question** recurrences: one question asked in 3 or 4 threads, paraphrased.

Noise, written to tempt the rules (a proposal from it is counted as noise): errors met once;
recurring errors no one wants a lesson for (KeyboardInterrupt when a person stops a run, `git
push` rejected as non-fast-forward, `exit code 1` from different failing tests); routine changes
to the same file for different reasons (a different package bumped in requirements.txt each
time); questions sharing words but asking different things ("how do I deploy the web app" /
"… the worker"). What is not covered: recurrences across months, sessions that describe one
error in words no error pattern knows, and Claude's wording (the bench runs without a key).

`--held-out` swaps in recurrences and benign noise written after the rules were tuned on the
tables above (an SSL certificate error, Java's heap, EMFILE; a pool size raised twice; a VPN
question; `Terminated`, git's CRLF warning), for a figure the tuning did not see.

A proposal is **accepted** when most of the episodes it cites belong to one planted recurrence
and cover at least two of its sessions (a second proposal of the same one is a **duplicate**);
otherwise **noise**. Printed per kind: planted, accepted, duplicates, noise (by what it came
from), missed; then precision and recall over all seeds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.dream.run import dream
from memory.git import Author, Store
from memory.trust import proposals
from memory.writes import WriteFile

START = date(2026, 11, 1)
DAYS = 30
AGENTS = ("claude-code", "cursor")
PEOPLE = ("U01ANN", "U02BEN", "U03CHO", "U04DEV")

# planted errors: (id, commands, the error as each session met it, the fix found)
ERRORS = [
    ("psycopg2", ["pytest tests/api", "pytest -x tests/api/test_orders.py", "make test"],
     ["ModuleNotFoundError: No module named 'psycopg2'"],
     "Fixed by adding psycopg2-binary to requirements-dev.txt"),
    ("unrelated", ["git pull origin main", "git merge upstream/main"],
     ["fatal: refusing to merge unrelated histories"],
     "Worked around with git merge --allow-unrelated-histories after checking the remote"),
    ("eresolve", ["npm install", "npm ci"],
     ["npm ERR! code ERESOLVE", "error: ERESOLVE unable to resolve dependency tree"],
     "Fixed by pinning eslint to 8.57 so the peer range of @typescript-eslint resolves"),
    ("oom", ["kubectl rollout status deploy/worker", "kubectl describe pod worker"],
     ["OOMKilled", "exit code 137"],
     "Raised the worker memory limit to 1Gi in deploy/worker.yaml"),
    ("pull-denied", ["docker compose up", "docker run acme/etl:latest"],
     ["Error response from daemon: pull access denied for acme/etl, repository does not exist"],
     ""),
    ("pg-refused", ["make migrate", "alembic upgrade head"],
     ["OperationalError: connection to server at localhost, port 5432 failed: Connection refused"],
     "Resolved by starting the db container first: docker compose up -d db"),
]  # fmt: skip
# planted fixes: (id, file, the change in several wordings)
FIXES = [
    ("gunicorn-timeout", "deploy/gunicorn.conf.py", [
        "Fixed the 502s on report exports by raising the gunicorn worker timeout to 120 seconds",
        "Raised gunicorn timeout to 120 s: slow report exports were killing workers (fixed)",
        "Fixed worker timeouts during exports: gunicorn timeout raised from 30 to 120 seconds"]),
    ("node-version", ".nvmrc", [
        "Pinned node 20.11 in .nvmrc: the build broke on node 22 (fixed)",
        "Fixed the frontend build by pinning node to 20.11 in .nvmrc again",
        ]),
    ("celery-prefetch", "worker/celeryconfig.py", [
        "Fixed long tasks starving the queue: set worker_prefetch_multiplier to 1",
        "Set celery worker_prefetch_multiplier = 1 again; fixed the starving queue of long tasks"]),
]  # fmt: skip
# planted questions: (id, paraphrases, the runbook that answers)
QUESTIONS = [
    ("grafana-access", ["How do I get access to the staging Grafana dashboards?",
                        "who gives access to grafana dashboards for staging",
                        "Access to the staging Grafana dashboards, how do I get it?",
                        "how to get grafana access on staging dashboards"], "runbooks/grafana.md"),
    ("feature-flag", ["Where do we turn on a feature flag for one customer?",
                      "how do I turn on a feature flag for a single customer",
                      "turn a feature flag on for one customer: where?"], "runbooks/flags.md"),
    ("rotate-keys", ["What is the process to rotate the signing keys for webhooks?",
                     "webhook signing keys: how do we rotate them",
                     "Process for rotating webhook signing keys?"], "runbooks/webhooks.md"),
]  # fmt: skip
# Written after the rules were tuned on the tables above, and not tuned on (`--held-out`).
HELD_OUT_ERRORS = [
    ("ssl", ["pip install -r requirements.txt", "curl https://registry.internal/simple/"],
     ["ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
      "SSLError: certificate verify failed: unable to get local issuer certificate"],
     "Fixed by pointing REQUESTS_CA_BUNDLE at the corporate CA bundle"),
    ("heap", ["./gradlew test", "mvn -q verify"],
     ["java.lang.OutOfMemoryError: Java heap space"],
     "Raised org.gradle.jvmargs to -Xmx4g in gradle.properties"),
    ("files", ["npm run dev", "yarn start"],
     ["Error: EMFILE: too many open files, watch"],
     "Fixed by installing watchman so the dev server stops opening a watcher per file"),
]  # fmt: skip
HELD_OUT_FIXES = [
    ("pool", "api/settings.py", [
        "Raised the SQLAlchemy pool_size to 20 after the checkout timeouts (fixed)",
        "Fixed checkout timeouts again: pool_size raised to 20 in api/settings.py"]),
]  # fmt: skip
HELD_OUT_QUESTIONS = [
    ("vpn", ["Do I need the VPN to reach the staging database?",
             "is the vpn required for the staging db",
             "staging database from home: VPN needed?"], "runbooks/vpn.md"),
]  # fmt: skip
HELD_OUT_BENIGN = [
    ("terminated", "Terminated", "the watcher was stopped when the laptop slept"),
    ("crlf", "warning: LF will be replaced by CRLF in web/app.js", "committed anyway"),
]  # fmt: skip
ONE_OFF = [
    "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'",
    "KeyError: 'customer_id'", "fatal: not a git repository (or any of the parent directories)",
    "503 Service Unavailable", "AssertionError: expected 3 rows, got 2",
    "PermissionError: [Errno 13] Permission denied: '/var/log/app.log'",
    "ImportError: cannot import name 'soft_unicode' from 'markupsafe'",
    "error: pathspec 'feature/refunds' did not match any file(s) known to git",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
]  # fmt: skip
BENIGN = [  # recurring, but nothing a person would write down
    ("interrupt", "KeyboardInterrupt", "stopped the run by hand to change the test selection"),
    ("non-ff", "error: failed to push some refs to origin",
     "rebased on main and pushed again (someone had pushed first)"),
    ("exit-1", "exit code 1", "a test failed; fixed the assertion in the test I was writing"),
]  # fmt: skip
ROUTINE = ["requests", "flask", "pydantic", "sqlalchemy", "boto3", "celery", "redis", "rich"]
OTHER_QUESTIONS = [
    "how do I deploy the web app", "how do I deploy the worker", "how do I deploy the docs site",
    "what does the refunds service own", "who is on call for payments this week",
    "where are the grafana dashboards for production", "which customers have the beta flag",
    "how do I rotate my laptop ssh key", "what is our retention for access logs",
    "can I run the migrations on staging myself",
]  # fmt: skip
TASKS = [
    "added pagination to the orders endpoint", "renamed the checkout feature flag",
    "wrote tests for the refunds export", "cleaned up unused fixtures in tests/api",
    "split the invoices module", "updated the README for local setup",
    "reviewed the retry logic in the payments client", "added a metric for queue depth",
]  # fmt: skip
FILES = ["api/orders.py", "web/flags.py", "tests/api/test_refunds.py", "billing/invoices.py"]


@dataclass
class Month:
    days: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    labels: dict[str, str] = field(default_factory=dict)  # "2026-11-03#L4" → "error:psycopg2"
    planted: dict[str, int] = field(default_factory=dict)  # "error:psycopg2" → sessions

    def add(self, day: date, data: dict[str, object], label: str = "") -> None:
        lines = self.days[day.isoformat()]
        lines.append(json.dumps({"at": f"{day.isoformat()}T10:00:00+00:00", **data}))
        if label:
            self.labels[f"{day.isoformat()}#L{len(lines)}"] = label


def session(rng: random.Random, n: int, **data: object) -> dict[str, object]:
    agent = rng.choice(AGENTS)
    return {"type": "session", "session": f"s{n}", "by": agent, "role": "agent", **data}


def thread(rng: random.Random, n: int, question: str, read: list[str]) -> dict[str, object]:
    ts = f"{1_700_000_000 + n * 977}{rng.randint(100000, 999999)}"
    link = f"https://acme.slack.com/archives/C0{n % 7}/p{ts}"
    return {"type": "thread", "question": question, "source": link,
            "asked_by": rng.choice(PEOPLE), "files_read": read}  # fmt: skip


def held_out() -> None:
    """Swap in the tables written after the rules were tuned."""
    global ERRORS, FIXES, QUESTIONS, BENIGN
    ERRORS, FIXES, QUESTIONS, BENIGN = (
        HELD_OUT_ERRORS,
        HELD_OUT_FIXES,
        HELD_OUT_QUESTIONS,
        HELD_OUT_BENIGN,
    )


def generate(rng: random.Random) -> Month:
    m, n = Month(), 0
    days = [START + timedelta(days=i) for i in range(DAYS)]

    def spread(k: int) -> list[date]:
        return sorted(rng.sample(days, k))

    for eid, commands, said, fix in ERRORS:
        times = rng.randint(2, 4)
        m.planted[f"error:{eid}"] = times
        for i, day in enumerate(spread(times)):
            n += 1
            cmd, err = rng.choice(commands), rng.choice(said)
            prose = rng.random() < 0.5  # the error only in the summary's words
            data = {"summary": f"Ran `{cmd}` and it failed: {err}." if prose else
                    f"Tried {cmd} while working on {rng.choice(TASKS)}.",
                    "commands": [cmd], "files_touched": [rng.choice(FILES)]}  # fmt: skip
            if not prose:
                data["errors"] = [err]
            if fix and i == times - 1:
                data["outcome"] = fix
            m.add(day, session(rng, n, **data), f"error:{eid}")
    for fid, path, wordings in FIXES:
        m.planted[f"fix:{fid}"] = len(wordings)
        for day, words in zip(spread(len(wordings)), wordings, strict=True):
            n += 1
            m.add(day, session(rng, n, summary=words, outcome=words, files_touched=[path]), f"fix:{fid}")  # fmt: skip
    for qid, asked, runbook in QUESTIONS:
        k = rng.randint(3, len(asked))
        m.planted[f"question:{qid}"] = k
        for day, q in zip(spread(k), rng.sample(asked, k), strict=True):
            n += 1
            m.add(day, thread(rng, n, q, [runbook]), f"question:{qid}")
    _noise(rng, m, days, n)
    return m


def _noise(rng: random.Random, m: Month, days: list[date], n: int) -> None:
    for err in ONE_OFF:
        n += 1
        m.add(rng.choice(days), session(rng, n, summary=f"Hit {err} in {rng.choice(FILES)}; fixed it.", errors=[err], files_touched=[rng.choice(FILES)]), "noise:one-off")  # fmt: skip
    for bid, err, what in BENIGN:
        for day in rng.sample(days, rng.randint(2, 4)):
            n += 1
            m.add(day, session(rng, n, summary=f"{rng.choice(TASKS)}; {what}.", errors=[err]), f"noise:{bid}")  # fmt: skip
    for pkg in rng.sample(ROUTINE, 5):
        n += 1
        m.add(rng.choice(days), session(rng, n, summary=f"Bumped {pkg} in requirements.txt to the latest minor; fixed the deprecation warnings.", files_touched=["requirements.txt"]), "noise:routine")  # fmt: skip
    for q in OTHER_QUESTIONS:
        n += 1
        m.add(rng.choice(days), thread(rng, n, q, ["runbooks/deploy.md"]), "noise:question")
    for day in days:  # the everyday sessions: nothing recurs
        for _ in range(rng.randint(2, 4)):
            n += 1
            task = rng.choice(TASKS)
            m.add(day, session(rng, n, summary=f"{task.capitalize()}.", outcome="Done, tests pass.", files_touched=[rng.choice(FILES)]), "noise:everyday")  # fmt: skip


def run(seed: int, show: bool) -> tuple[dict[str, Counter[str]], int]:
    """The month as it happens: each day's archive written, then that night's dream (each
    reads the last 30 days; what waits for a person is not proposed again)."""
    rng = random.Random(seed)
    month = generate(rng)
    author = Author("a", "a@x")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "remote.git"), Path(tmp) / "data")
        store.init()
        runbooks = {r: f"# {r}\n\n- owned by the platform team\n" for _, _, r in QUESTIONS}
        store.write([WriteFile(p, t) for p, t in runbooks.items()], author=author, message="seed")
        for day in sorted(month.days):
            text = "\n".join(month.days[day]) + "\n"
            store.write([WriteFile(f"archive/{day}.jsonl", text)], author=author, message=day)
            dream(store, now=datetime.fromisoformat(day) + timedelta(days=1, hours=3))
        tree = {p: b.decode() for p, b in store.tree().items()}
    found = [p for p in proposals.pending(tree) if p.kind == "lesson"]
    return score(month, found, show), sum(1 for ls in month.days.values() for _ in ls)


def score(month: Month, found: list[proposals.Proposal], show: bool) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = defaultdict(Counter)
    seen: set[str] = set()
    for label in month.planted:
        out[label.split(":")[0]]["planted"] += 1
    for p in found:
        refs = [r.strip() for r in dict(p.meta).get("episodes", "").split(",") if "#L" in r]
        labels = Counter(month.labels.get(r, "noise:unlabelled") for r in refs)
        top, k = labels.most_common(1)[0]
        kind = top.split(":")[0]
        if kind != "noise" and k >= 2 and 2 * k >= len(refs):
            verdict = "duplicate" if top in seen else "accepted"
            seen.add(top)
            out[kind][verdict] += 1
        else:
            out["noise"][top.split(":", 1)[1]] += 1
            verdict = "noise"
        if show:
            print(f"  [{verdict}: {top}] {p.text[:150]}")
    for label in month.planted:
        if label not in seen:
            out[label.split(":")[0]]["missed"] += 1
            if show:
                print(f"  [missed: {label}]")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--show", action="store_true", help="print each proposal and its verdict")
    parser.add_argument("--held-out", action="store_true", help="the tables not tuned on")
    args = parser.parse_args()
    if args.held_out:
        held_out()
    total: dict[str, Counter[str]] = defaultdict(Counter)
    for seed in args.seeds:
        by, episodes = run(seed, args.show)
        print(
            f"seed {seed}: {episodes} episodes; " + json.dumps({k: dict(v) for k, v in by.items()})
        )
        for k, v in by.items():
            total[k].update(v)
    for kind in ("error", "fix", "question"):
        c = total[kind]
        print(f"{kind:9} planted {c['planted']:3}  accepted {c['accepted']:3}  duplicates "
              f"{c['duplicate']:2}  missed {c['missed']:3}")  # fmt: skip
    noise = total["noise"]
    print(f"noise     {sum(noise.values()):3} proposals: {dict(noise)}")
    accepted = sum(total[k]["accepted"] for k in ("error", "fix", "question"))
    made = accepted + sum(total[k]["duplicate"] for k in total) + sum(noise.values())
    planted = sum(total[k]["planted"] for k in ("error", "fix", "question"))
    print(f"precision {accepted}/{made} = {accepted / max(made, 1):.2f}; "
          f"recall {accepted}/{planted} = {accepted / max(planted, 1):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
