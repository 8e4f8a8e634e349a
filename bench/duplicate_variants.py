"""Templates for bench/duplicate_pairs.py in the ways the public corpora reword a statement
(issue 40: read from MRPC, the STS benchmark and SICK, none of their sentences copied):
inflection and tense, the order of a list, synonyms, abbreviations; and what sets two close
statements apart there: one saying more (one-way entailment), another identifier or number.
"""

from __future__ import annotations

from bench.duplicate_subjects import PEOPLE, TEAMS, Template, collector

TEMPLATES: list[Template] = []
_t = collector(TEMPLATES)

# --- inflection and tense: one statement ---
_t("inflection", "same", "{x} retries failed webhooks", "{x} retried the failed webhook")
_t(
    "inflection",
    "same",
    "the {t} team deploys {x} on Tuesdays",
    "the {t} team deployed {x} on Tuesday",
    TEAMS,
)
_t(
    "inflection",
    "same",
    "{p} owns the release checklist",
    "{p} owned the release checklists",
    PEOPLE,
)
_t(
    "inflection",
    "same",
    "{x} drops connections under load",
    "{x} is dropping connections under load",
)
_t(
    "inflection",
    "same",
    "{x} ran out of disk during the backfill",
    "{x} runs out of disk during backfills",
)
_t(
    "inflection",
    "same",
    "the children of {x} took the old queue",
    "the child of {x} takes the old queue",
)

# --- the order of a list ---
_t(
    "list order",
    "same",
    "{x} needs redis, postgres and kafka",
    "{x} needs kafka, redis and postgres",
)
_t(
    "list order",
    "same",
    "{x}, {y} and the {t} lead review schema changes",
    "the {t} lead, {y} and {x} review schema changes",
    PEOPLE,
)
_t(
    "list order",
    "same",
    "alerts for {x} go to slack and pagerduty",
    "alerts for {x} go to pagerduty and slack",
)
_t(
    "list order",
    "same",
    "{x} runs in us-east-1 and eu-west-1",
    "{x} runs in eu-west-1 and us-east-1",
)

# --- synonyms and abbreviations ---
_t("synonym", "same", "{x} needs a fix before Friday", "{x} needs a repair before Friday")
_t(
    "synonym",
    "same",
    "the {t} team purchased the {x} license",
    "the {t} team bought the {x} license",
    TEAMS,
)
_t(
    "synonym",
    "same",
    "restarting {x} fixes the stuck jobs",
    "restarting {x} repairs the stuck jobs",
)
_t(
    "synonym",
    "same",
    "{x} begins the nightly export at midnight",
    "{x} starts the nightly export at midnight",
)
_t("abbreviation", "same", "the {x} db runs in prod", "the {x} database runs in production")
_t(
    "abbreviation",
    "same",
    "{x} config lives in the infra repo",
    "{x} configuration lives in the infra repository",
)
_t("abbreviation", "same", "{x} pods run on k8s", "{x} pods run on kubernetes")
_t(
    "abbreviation",
    "same",
    "the {x} docs explain auth",
    "the {x} documentation explains authentication",
)

# --- one says more: not one meaning both ways (SICK's one-way entailment) ---
_t("one-way", "different", "{x} times out under parallel load", "{x} times out")
_t("one-way", "different", "{x} drops webhooks from the EU region", "{x} drops webhooks")
_t(
    "one-way",
    "different",
    "{p} approved the {x} schema change on Friday",
    "{p} approved the {x} schema change",
    PEOPLE,
)

# --- another identifier or number: two facts ---
_t("identifier", "different", "INC-1042 was caused by {x}", "INC-1043 was caused by {x}")
_t(
    "identifier",
    "different",
    "{x} runs on node-7 in the blue pool",
    "{x} runs on node-9 in the blue pool",
)
_t("identifier", "different", "the {x} fix is acme/api#12", "the {x} fix is acme/api#21")
_t("identifier", "different", "{x} keeps 30 days of logs", "{x} keeps 90 days of logs")
