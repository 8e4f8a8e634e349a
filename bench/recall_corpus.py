"""Engineering notes and the questions people ask about them, for bench/recall.py.

Each note is one fact about a service, written from a template with slots (service, technology,
symptom, codename, flag, table, customer, ticket, numbers), and filed as an entry under its
service's topic file, as `hippo note` files it. A query is built from the note's slot values,
never from its sentence: 2-4 of its rarest values, in any order, in a question frame, and then
changed the way people change them: an extra word or two the note does not hold, another form
of a word (deployed → deployment), a partial word (kube, config), or a typo.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

AREAS = [
    "checkout",
    "billing",
    "ledger",
    "invoice",
    "search",
    "notifications",
    "auth",
    "gateway",
    "catalog",
    "inventory",
    "shipping",
    "payments",
    "refunds",
    "pricing",
    "onboarding",
    "reporting",
    "analytics",
    "scheduler",
    "mailer",
    "webhooks",
    "exports",
    "imports",
    "identity",
    "profile",
    "recommendations",
    "fraud",
    "risk",
    "tax",
    "subscriptions",
    "coupons",
    "cart",
    "orders",
    "fulfilment",
    "warehouse",
    "returns",
    "support",
    "chat",
    "media",
    "thumbnails",
    "uploads",
    "storage",
    "audit",
    "compliance",
    "metrics",
    "alerts",
    "status",
    "admin",
    "console",
    "partner",
    "vendor",
    "marketplace",
    "reviews",
    "ratings",
    "loyalty",
    "rewards",
    "wallet",
    "payouts",
    "settlement",
    "reconciliation",
    "kyc",
    "sessions",
    "tokens",
    "geo",
    "maps",
    "routing",
    "dispatch",
    "tracking",
    "labels",
    "printing",
    "quotes",
    "contracts",
    "documents",
    "signatures",
    "calendar",
    "booking",
    "availability",
]
KINDS = ["api", "worker", "web", "sync", "cron", "gateway"]
TECH = [
    "redis",
    "postgresql",
    "kafka",
    "elasticsearch",
    "s3",
    "cloudfront",
    "nginx",
    "envoy",
    "kubernetes",
    "helm",
    "terraform",
    "celery",
    "rabbitmq",
    "memcached",
    "dynamodb",
    "bigquery",
    "snowflake",
    "airflow",
    "grafana",
    "prometheus",
    "sentry",
    "datadog",
    "pagerduty",
    "vault",
    "consul",
    "stripe",
    "twilio",
    "sendgrid",
    "okta",
    "docker",
    "pgbouncer",
    "mongodb",
    "clickhouse",
    "cassandra",
    "opensearch",
    "lambda",
    "sqs",
    "cloudflare",
    "fastly",
    "varnish",
    "haproxy",
    "istio",
    "argocd",
    "jenkins",
    "github",
]
# (note's form, other forms people use)
SYMPTOMS = [
    ("timeouts", ["timeout", "timing out", "timed out"]),
    ("deadlocks", ["deadlock", "deadlocking", "deadlocked"]),
    ("throttled", ["throttling", "throttle", "throttles"]),
    ("crashes", ["crash", "crashing", "crashed"]),
    ("evicted", ["eviction", "evicting", "evicts"]),
    ("duplicated", ["duplicate", "duplicates", "duplication"]),
    ("retries", ["retry", "retrying", "retried"]),
    ("leaks", ["leak", "leaking", "leaked"]),
    ("stalls", ["stall", "stalling", "stalled"]),
    ("rejected", ["rejects", "rejecting", "rejection"]),
    ("corrupted", ["corruption", "corrupt", "corrupts"]),
    ("dropped", ["drops", "dropping", "drop"]),
    ("expired", ["expiry", "expiring", "expires"]),
    ("flapping", ["flaps", "flap", "flapped"]),
    ("degraded", ["degradation", "degrades", "degrading"]),
    ("overloaded", ["overload", "overloading", "overloads"]),
]
ACTIONS = [
    ("deployed", ["deploy", "deployment", "deploys"]),
    ("restarted", ["restart", "restarting", "restarts"]),
    ("migrated", ["migration", "migrate", "migrating"]),
    ("rotated", ["rotation", "rotate", "rotating"]),
    ("scaled", ["scaling", "scale", "scales"]),
    ("reindexed", ["reindex", "reindexing", "reindexes"]),
    ("backfilled", ["backfill", "backfilling", "backfills"]),
    ("configured", ["configuration", "configure", "config"]),
]
LOADS = ["parallel load", "peak traffic", "batch imports", "nightly exports", "cold starts"]
PEOPLE = [
    "alice",
    "bob",
    "carmen",
    "dmitri",
    "esther",
    "farid",
    "grace",
    "hiro",
    "ines",
    "jonas",
    "kemal",
    "lena",
    "marco",
    "nadia",
    "oskar",
    "priya",
    "quentin",
    "rosa",
    "sanjay",
    "tanya",
    "uri",
    "vera",
    "wei",
    "xenia",
    "yusuf",
    "zara",
]
SYLLABLES = [
    "bram",
    "ble",
    "wood",
    "fen",
    "ny",
    "cor",
    "vex",
    "ta",
    "lo",
    "mir",
    "quin",
    "sol",
    "dar",
    "ith",
    "ka",
    "ro",
    "zen",
    "pel",
    "tor",
    "mon",
]
GLUE_FIXES = [
    "pin the client to one connection per worker",
    "raise the pool size and add jitter to the backoff",
    "drain the node before the rollout",
    "turn the flag off and replay the dead letter queue",
    "ask the vendor to whitelist our egress addresses",
    "move the job to the quiet hours",
]
# Words people add that a given note may not hold (checked per note).
EXTRA = [
    "issue",
    "problem",
    "error",
    "prod",
    "production",
    "again",
    "broken",
    "fix",
    "failing",
    "slow",
    "outage",
    "team",
    "today",
    "latest",
    "docs",
    "setup",
    "owner",
    "alert",
    "incident",
    "customers",
    "users",
    "weekend",
    "morning",
    "release",
    "cluster",
    "region",
    "latency",
    "memory",
    "cpu",
    "dashboard",
    "logs",
]

TEMPLATES = [
    "{svc} {symptom} when {tech} is under {load}; {fix}",
    "{svc} is {action} with the {flag} flag on {tech}; {person} signs off on it",
    "the {tech} pool for {svc} is capped at {n} connections; above {m} it {symptom}",
    "{person} owns {svc}; page them when {tech} {symptom} during {load}",
    "nightly {job} in {svc} {symptom} if {tech} is {action} mid-run; rerun with {flag}",
    "migration {ticket} on {svc} locks the {table} table for about {n} minutes",
    "customer {customer} on {svc} gets {n} days of grace when their card {symptom}",
    "{svc} calls to {tech} time out after {n} ms; {codename} needs under {m} ms",
    "project {codename} {action} {svc} onto {tech}; {person} tracks it in {ticket}",
    "the {table} table in {svc} is {action} nightly from {tech} by {job}",
]


@dataclass
class Note:
    path: str
    text: str
    slots: dict[str, str]
    words: set[str] = field(default_factory=set)  # lower-case words of the text


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts))


def notes(n: int, rng: random.Random) -> list[Note]:
    """`n` notes over about n/8 services."""
    services = sorted({f"{rng.choice(AREAS)}-{rng.choice(KINDS)}" for _ in range(max(8, n // 8))})
    out: list[Note] = []
    for i in range(n):
        symptom = rng.choice(SYMPTOMS)
        action = rng.choice(ACTIONS)
        svc = rng.choice(services)
        slots = {
            "svc": svc,
            "tech": rng.choice(TECH),
            "symptom": symptom[0],
            "action": action[0],
            "load": rng.choice(LOADS),
            "fix": rng.choice(GLUE_FIXES),
            "person": rng.choice(PEOPLE),
            "flag": f"{svc.split('-')[0]}_{_name(rng, 2)}_{rng.choice(['window', 'limit', 'mode'])}",
            "table": f"{_name(rng, 2)}_{rng.choice(['items', 'events', 'ledger', 'jobs'])}",
            "job": f"{_name(rng, 2)}-{rng.choice(['sweep', 'rollup', 'export'])}",
            "ticket": f"ops-{rng.randint(100, 9999)}",
            "customer": _name(rng, 3).capitalize(),
            "codename": _name(rng, 3).capitalize(),
            "n": str(rng.randint(2, 90)),
            "m": str(rng.randint(100, 900)),
        }
        template = TEMPLATES[i % len(TEMPLATES)]
        text = template.format(**slots)
        used = {k: v for k, v in slots.items() if "{" + k + "}" in template}
        note = Note(f"services/{svc}.md", text[0].upper() + text[1:], used)
        note.words = set(text.lower().replace(";", " ").split())
        out.append(note)
    return out


def files(all_notes: list[Note]) -> dict[str, bytes]:
    """The topic files: one per service, a title, then its notes as entries with metadata."""
    by_path: dict[str, list[str]] = {}
    for i, note in enumerate(all_notes):
        meta = f"[source: https://acme.slack.com/archives/C01/p{1700000000 + i}; added: 2026-{1 + i % 11:02d}-{1 + i % 27:02d}]"
        by_path.setdefault(note.path, []).append(f"- {note.text} {meta}")
    return {
        path: (f"# {path[9:-3]}\n\n" + "\n".join(lines) + "\n").encode()
        for path, lines in sorted(by_path.items())
    }


# Slots whose values name a note (the rest are too common to ask with).
DISTINCT = ["codename", "customer", "flag", "table", "job", "ticket", "svc", "tech", "person"]
FRAMES = ["{q}", "why {q}", "how do we handle {q}", "what about {q}", "{q}?", "who knows {q}"]
KINDS_OF_QUERY = ["distinctive", "extra words", "word forms", "partial words", "typos"]


def _rarest(note: Note, df: dict[str, int], rng: random.Random) -> list[str]:
    """2-4 of the note's slot values, rarer first, plus its symptom or action word."""
    values = [note.slots[k] for k in DISTINCT if k in note.slots]
    values.sort(key=lambda v: df.get(v.lower(), 0))
    picked = values[: rng.randint(1, 3)]
    for k in ("symptom", "action"):
        if k in note.slots:
            picked.append(note.slots[k])
            break
    rng.shuffle(picked)
    return picked


def query(note: Note, kind: str, df: dict[str, int], rng: random.Random) -> str:
    words = _rarest(note, df, rng)
    if kind == "word forms":
        forms = dict(SYMPTOMS + ACTIONS)
        words = [rng.choice(forms[w]) if w in forms else w for w in words]
    elif kind == "partial words":
        long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
        if long:
            i = rng.choice(long)
            words[i] = words[i][: max(4, len(words[i]) * 3 // 5)]
        else:  # a compound name typed in part: its first piece (never a bare `ops`)
            heads = [(i, w.replace("_", "-").split("-")[0]) for i, w in enumerate(words)]
            heads = [(i, h) for i, h in heads if len(h) >= 4 and h.isalpha() and h != words[i]]
            if heads:
                i, head = heads[0]
                words[i] = head
    elif kind == "typos":
        i = max(range(len(words)), key=lambda j: (len(words[j]), j))
        words[i] = typo(words[i], rng)
    if kind == "distinctive":  # the words alone, as a precise lookup types them
        return " ".join(words)
    extra = [w for w in EXTRA if w not in note.words]
    for w in rng.sample(extra, rng.randint(1, 2)):
        words.insert(rng.randint(0, len(words)), w)
    return rng.choice(FRAMES).format(q=" ".join(words))


def typo(word: str, rng: random.Random) -> str:
    """One slip: two letters swapped, one dropped, one doubled or one replaced."""
    spots = [i for i in range(1, len(word) - 1) if word[i : i + 2].isalpha()]
    if len(word) < 4 or not spots:
        return word
    i = rng.choice(spots)
    how = rng.randrange(4)
    if how == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == 1:
        return word[:i] + word[i + 1 :]
    if how == 2:
        return word[:i] + word[i] + word[i:]
    return word[:i] + rng.choice("aeioustrn") + word[i + 1 :]


def doc_freq(all_notes: list[Note]) -> dict[str, int]:
    """How many notes hold each slot value (lower case)."""
    df: dict[str, int] = {}
    for note in all_notes:
        for v in set(note.slots.values()):
            df[v.lower()] = df.get(v.lower(), 0) + 1
    return df
