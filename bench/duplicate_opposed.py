"""Templates for bench/duplicate_pairs.py whose pairs share most words but may not share a
meaning: who did what to whom (role swaps), a `not` on one side only, an antonym. Mostly
"different"; a few "same" (two spellings of one negation, a symmetric relation).
"""

from __future__ import annotations

from bench.duplicate_subjects import COMPANIES, PEOPLE, REGIONS, TEAMS, Template, collector

TEMPLATES: list[Template] = []
_t = collector(TEMPLATES)


# --- role swaps around by / and / from … to / than / over (and bare subject-object swaps) ---
_t(
    "role swap",
    "different",
    "{x} was acquired in 1997 by {y}",
    "{y} was acquired in 1997 by {x}",
    COMPANIES,
)
_t(
    "role swap",
    "different",
    "traffic fails over from {x} to {y} at midnight",
    "traffic fails over from {y} to {x} at midnight",
)
_t(
    "role swap",
    "different",
    "{x} is faster than {y} on cold starts",
    "{y} is faster than {x} on cold starts",
)
_t(
    "role swap",
    "different",
    "{x} takes priority over {y} during incidents",
    "{y} takes priority over {x} during incidents",
)
_t("role swap", "different", "{x} calls {y} before every write", "{y} calls {x} before every write")
_t("role swap", "different", "{x} depends on {y} for tokens", "{y} depends on {x} for tokens")
_t(
    "role swap",
    "different",
    "{x} replaced {y} as the default broker",
    "{y} replaced {x} as the default broker",
)
_t("role swap", "different", "{x} is the fallback for {y}", "{y} is the fallback for {x}")
_t(
    "role swap",
    "different",
    "{x} reports to {y} on the incident rota",
    "{y} reports to {x} on the incident rota",
    PEOPLE,
)
_t(
    "role swap",
    "different",
    "{x} is reviewing the pull request of {y}",
    "{y} is reviewing the pull request of {x}",
    PEOPLE,
)
_t(
    "role swap",
    "different",
    "a page from {x} wakes {y} and the payments lead",
    "a page from {y} wakes {x} and the payments lead",
)
_t(
    "role swap",
    "different",
    "{x} hands the pager to {y} on Mondays",
    "{y} hands the pager to {x} on Mondays",
    PEOPLE,
)
_t(
    "role swap",
    "different",
    "requests go to {x} and then to {y}",
    "requests go to {y} and then to {x}",
)
_t(
    "role swap",
    "different",
    "{x} bought the ledger product from {y}",
    "{y} bought the ledger product from {x}",
    COMPANIES,
)
_t(
    "role swap",
    "different",
    "the migration moves data from {x} to {y}",
    "the migration moves data from {y} to {x}",
    REGIONS,
)
_t(
    "role swap",
    "different",
    "{x} is blocking {y} from deploying",
    "{y} is blocking {x} from deploying",
)
_t(
    "role swap",
    "same",
    "{x} was acquired by {y} in 1997",
    "{x} was acquired by {y} in 1997.",
    COMPANIES,
)
_t(
    "role swap",
    "same",
    "traffic fails over from {x} to {y} at midnight",
    "Traffic fails over from {x} to {y} at midnight",
    REGIONS,
)
_t(
    "role swap",
    "same",
    "{x} is faster than {y} on cold starts",
    "{x} is faster than {y} on cold starts!",
)

# --- one-sided negation (and two spellings of one negation) ---
_t("negation", "different", "{x} retries failed webhooks", "{x} never retries failed webhooks")
_t("negation", "different", "{x} is driving the rollout", "there is no {x} driving the rollout")
_t(
    "negation",
    "different",
    "{x} pages the on-call for 5xx spikes",
    "{x} no longer pages the on-call for 5xx spikes",
)
_t("negation", "different", "{x} logs request bodies", "{x} stopped logging request bodies")
_t(
    "negation",
    "different",
    "{x} starts after a config change",
    "{x} fails to start after a config change",
)
_t(
    "negation",
    "different",
    "{x} can be restarted during business hours",
    "{x} cannot be restarted during business hours",
)
_t(
    "negation",
    "different",
    "somebody from {t} owns the runbook",
    "nobody from {t} owns the runbook",
    TEAMS,
)
_t(
    "negation",
    "different",
    "{x} deploys need a review from security",
    "{x} deploys need no review from security",
)
_t("negation", "different", "{x} ships with the debug flag", "{x} ships without the debug flag")
_t("negation", "different", "{x} is reachable from the VPN", "{x} isn't reachable from the VPN")
_t(
    "negation",
    "different",
    "{x} had something to do with the outage",
    "{x} had nothing to do with the outage",
)
_t("negation", "same", "{x} doesn't retry failed webhooks", "{x} does not retry failed webhooks")
_t(
    "negation",
    "same",
    "{x} can't be restarted during business hours",
    "{x} cannot be restarted during business hours",
)
_t("negation", "same", "{x} no longer logs request bodies", "{x} stopped logging request bodies")
_t("negation", "same", "{x} won't page on weekends", "{x} will not page on weekends")

_t("negation", "different", "{x} does not page but retries", "{x} pages but does not retry")
_t(
    "negation",
    "different",
    "not all nodes of {x} run the new kernel",
    "all nodes of {x} do not run the new kernel",
)
_t("negation", "different", "{x} would page the on-call", "{x} will page the on-call")
_t("numbers", "different", "3 of 5 nodes of {x} are healthy", "5 of 3 nodes of {x} are healthy")

# --- antonyms ---
_t("antonym", "different", "{x} is enabled in staging", "{x} is disabled in staging")
_t(
    "antonym",
    "different",
    "a man is getting into the car of {p}",
    "a man is getting off the car of {p}",
    PEOPLE,
)
_t(
    "antonym",
    "different",
    "{x} gets a seat on the architecture board",
    "{x} rejects a seat on the architecture board",
    TEAMS,
)
_t(
    "antonym",
    "different",
    "the {t} team accepts pull requests from contractors",
    "the {t} team rejects pull requests from contractors",
    TEAMS,
)
_t(
    "antonym",
    "different",
    "latency of {x} increased after the upgrade",
    "latency of {x} decreased after the upgrade",
)
_t("antonym", "different", "{x} is the first service to drain", "{x} is the last service to drain")
_t(
    "antonym",
    "different",
    "the public bucket of {x} holds the invoices",
    "the private bucket of {x} holds the invoices",
)
_t("antonym", "different", "writes to {x} are synchronous", "writes to {x} are asynchronous")
_t(
    "antonym",
    "different",
    "{x} passed the load test on Friday",
    "{x} failed the load test on Friday",
)
_t(
    "antonym",
    "different",
    "{x} keeps the maximum pool size at startup",
    "{x} keeps the minimum pool size at startup",
)
_t("antonym", "different", "the health check of {x} is stable", "the health check of {x} is flaky")
_t("antonym", "different", "{x} reads from the primary", "{x} reads from the replica")
_t(
    "antonym",
    "different",
    "the staging copy of {x} is online",
    "the staging copy of {x} is offline",
)
_t("antonym", "same", "{x} is enabled in staging", "{x} is enabled in staging.")
_t(
    "antonym",
    "same",
    "the first deploy of {x} each week needs a review",
    "The first deploy of {x} each week needs a review",
)
