"""An adversarial set of entry pairs for tidy's duplicate merge, written for hippo (issue 26).

The styles are those public paraphrase and entailment corpora are built around (word-order swaps
with high word overlap, one-sided negations, antonyms, passive against active, numbers as words
and digits, near-synonyms, hedges), studied for their shape; every sentence here is our own, in
the language of a team's memory plus some everyday sentences. Each template is filled with
several subjects so that a rule cannot pass by luck of one word.

`pairs()` → (style, label, a, b); label "same" (one statement in other words: merging loses
nothing) or "different" (merging would lose or distort a fact).
"""

from __future__ import annotations

from collections.abc import Iterator

SERVICES = ["checkout-api", "billing", "the ledger", "search", "the gateway", "payouts", "auth"]
PEOPLE = ["Alice", "Bob", "Priya", "Tomás", "Mei", "Olu", "Dana"]
COMPANIES = ["Revco", "CVS", "Acme", "Initech", "Globex", "Hooli", "Umbrella"]
TEAMS = ["platform", "payments", "growth", "security", "data", "mobile", "infra"]
REGIONS = ["us-east-1", "eu-west-1", "ap-south-1", "us-west-2", "eu-central-1", "sa-east-1"]
THINGS = ["the cache", "the queue", "the scheduler", "the exporter", "the importer", "the CDN"]
FILLS = 7  # subjects per template

# (style, label, a, b); {x} and {y} are two different subjects of one pool, {t} a team,
# {p} a person, {r} a region.
T = tuple[str, str, str, str]
TEMPLATES: list[tuple[str, list[str], T]] = []


def _t(style: str, label: str, a: str, b: str, pool: list[str] = SERVICES) -> None:
    TEMPLATES.append((style, pool, (style, label, a, b)))


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

# --- passive against active ---
_t("passive", "same", "{y} acquired {x} in 1997", "{x} was acquired by {y} in 1997", COMPANIES)
_t(
    "passive",
    "same",
    "{p} approved the schema change",
    "the schema change was approved by {p}",
    PEOPLE,
)
_t(
    "passive",
    "same",
    "the {t} team owns the ledger service",
    "the ledger service is owned by the {t} team",
    TEAMS,
)
_t(
    "passive",
    "same",
    "{x} is called by the mobile app at launch",
    "the mobile app calls {x} at launch",
)
_t(
    "passive",
    "same",
    "the nightly job rotates the keys of {x}",
    "the keys of {x} are rotated by the nightly job",
)
_t("passive", "different", "{x} acquired {y} in 1997", "{x} was acquired by {y} in 1997", COMPANIES)
_t("passive", "different", "{x} calls {y} on every login", "{x} is called by {y} on every login")
_t(
    "passive",
    "different",
    "{p} reviewed the change of the {t} team",
    "{p} was reviewed by the change of the {t} team",
    PEOPLE,
)
_t("passive", "different", "{x} throttles {y} under load", "{x} is throttled by {y} under load")

# --- numbers as words and digits (and units) ---
_t(
    "numbers",
    "same",
    "2 engineers from {t} are on call this week",
    "two engineers from {t} are on call this week",
    TEAMS,
)
_t("numbers", "same", "{x} retries 3 times before paging", "{x} retries three times before paging")
_t("numbers", "same", "{x} times out after 30 seconds", "{x} times out after 30 s")
_t(
    "numbers",
    "same",
    "the {t} backlog holds 1,000 tickets",
    "the {t} backlog holds 1000 tickets",
    TEAMS,
)
_t("numbers", "same", "{x} keeps twenty-five connections open", "{x} keeps 25 connections open")
_t(
    "numbers",
    "same",
    "the cache of {x} expires after 5 min",
    "the cache of {x} expires after 5 minutes",
)
_t("numbers", "same", "{x} needs 12 replicas at peak", "{x} needs twelve replicas at peak")
_t(
    "numbers",
    "same",
    "{x} drops 10% of traffic during a canary",
    "{x} drops 10 percent of traffic during a canary",
)
_t("numbers", "different", "{x} retries 3 times before paging", "{x} retries 5 times before paging")
_t(
    "numbers",
    "different",
    "{x} retries three times before paging",
    "{x} retries four times before paging",
)
_t("numbers", "different", "{x} times out after 30 seconds", "{x} times out after 30 minutes")
_t(
    "numbers",
    "different",
    "2 French journalists covered the launch of {x}",
    "3 French journalists covered the launch of {x}",
)
_t(
    "numbers",
    "different",
    "{x} keeps twenty connections open",
    "{x} keeps twenty-five connections open",
)
_t("numbers", "different", "{x} was migrated in 2019", "{x} was migrated in 2021")
_t("numbers", "different", "the cache of {x} holds 1,000 keys", "the cache of {x} holds 100 keys")

# --- near-synonyms: the same thing in other words, or a neighbouring word that says more ---
_t(
    "near-synonym",
    "same",
    "the {x} db is wiped every Sunday",
    "the {x} database is wiped every Sunday",
)
_t(
    "near-synonym",
    "same",
    "{x} config lives in the infra repo",
    "{x} configuration lives in the infra repository",
)
_t(
    "near-synonym",
    "same",
    "the {t} on call hands over on Mondays",
    "the {t} on-call hands over on Mondays",
    TEAMS,
)
_t(
    "near-synonym",
    "same",
    "the deploy of {x} failed on Friday",
    "the deployment of {x} failed on Friday",
)
_t(
    "near-synonym",
    "same",
    "{x} latency rose after the upgrade",
    "{x} latency went up after the upgrade",
)
_t("near-synonym", "same", "{x} is slow on cold starts", "{x} is sluggish on cold starts")
_t("near-synonym", "different", "the build of {x} is slow", "the build of {x} is stuck")
_t(
    "near-synonym",
    "different",
    "{x} latency rose after the upgrade",
    "{x} latency soared after the upgrade",
)
_t("near-synonym", "different", "{x} was paused for the freeze", "{x} was cancelled for the freeze")
_t("near-synonym", "different", "{x} was deprecated last quarter", "{x} was deleted last quarter")
_t("near-synonym", "different", "{x} warns on expired tokens", "{x} fails on expired tokens")
_t("near-synonym", "different", "{x} is owned by the {t} team", "{x} is used by the {t} team")

# --- hedges ---
_t(
    "hedge",
    "different",
    "{x} sometimes drops webhooks under load",
    "{x} always drops webhooks under load",
)
_t("hedge", "different", "{x} drops webhooks under load", "{x} sometimes drops webhooks under load")
_t("hedge", "different", "{x} usually restarts cleanly", "{x} rarely restarts cleanly")
_t(
    "hedge",
    "different",
    "{x} may need a manual restart after deploys",
    "{x} needs a manual restart after deploys",
)
_t("hedge", "different", "{x} often times out on Mondays", "{x} seldom times out on Mondays")
_t("hedge", "different", "{x} probably leaks memory", "{x} leaks memory")
_t(
    "hedge",
    "different",
    "all nodes of {x} run the new kernel",
    "some nodes of {x} run the new kernel",
)
_t(
    "hedge",
    "same",
    "{x} sometimes drops webhooks under load",
    "{x} occasionally drops webhooks under load",
)
_t(
    "hedge",
    "same",
    "{x} sometimes drops webhooks under load",
    "under load {x} sometimes drops webhooks",
)
_t("hedge", "same", "{x} always drops webhooks under load", "{x} always drops webhooks under load.")

# --- plain paraphrases (word order, articles, tense, case, spellings) ---
_t("paraphrase", "same", "the {x} runbook lives in the wiki", "The {x} runbook lives in the wiki")
_t("paraphrase", "same", "{x} alerts go to #inc-{t}", "{x} alerts go to #inc-{t}.", TEAMS)
_t("paraphrase", "same", "restarting {x} clears the stuck jobs", "restarting {x} clears stuck jobs")
_t(
    "paraphrase",
    "same",
    "{x} keys in redis expire after 7 days",
    "{x} keys in Redis expire after seven days",
)
_t(
    "paraphrase",
    "same",
    "the on call for {x} is paged at 10am",
    "the on-call for {x} is paged at 10:00",
)
_t(
    "paraphrase",
    "same",
    "{x} logs are kept in the EU region",
    "logs of {x} are kept in the EU region",
)
_t(
    "paraphrase",
    "same",
    "the vendor sandbox of {x} times out under parallel load",
    "under parallel load the vendor sandbox of {x} times out",
)
_t("paraphrase", "different", "{x} logs go to Datadog", "{x} traces go to Datadog")
_t(
    "paraphrase",
    "different",
    "the {x} runbook lives in the wiki",
    "the {x} runbook lives in the repository",
)


def _pool_pair(pool: list[str], i: int) -> tuple[str, str]:
    return pool[i % len(pool)], pool[(i + 1 + i // len(pool)) % len(pool)]


def pairs() -> Iterator[tuple[str, str, str, str]]:
    """Every template filled FILLS times: (style, label, a, b)."""
    for _style, pool, (style, label, a, b) in TEMPLATES:
        for i in range(FILLS):
            x, y = _pool_pair(pool, i)
            if x == y:
                y = pool[(i + 2) % len(pool)]
            fill = {
                "x": x,
                "y": y,
                "p": PEOPLE[i % len(PEOPLE)],
                "t": TEAMS[i % len(TEAMS)],
                "r": REGIONS[i % len(REGIONS)],
            }
            yield style, label, a.format(**fill), b.format(**fill)
