"""Engineering notes and the questions people ask about them, for bench/recall.py.

Each note is one fact about a service, written from a template with slots (service, technology,
symptom, codename, flag, table, customer, ticket, numbers), and filed as an entry under its
service's topic file, as `hippo note` files it. The questions asked about them are
bench/recall_queries.py's.
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


def doc_freq(all_notes: list[Note]) -> dict[str, int]:
    """How many notes hold each slot value (lower case)."""
    df: dict[str, int] = {}
    for note in all_notes:
        for v in set(note.slots.values()):
            df[v.lower()] = df.get(v.lower(), 0) + 1
    return df
