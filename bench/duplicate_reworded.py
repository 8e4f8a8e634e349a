"""Templates for bench/duplicate_pairs.py whose pairs say a thing in other words, or seem to:
passive against active, numbers as words and digits, near-synonyms, hedges, plain paraphrases
(word order, articles, tense, case, spellings). Mostly "same"; a "different" where the other
words say more or less.
"""

from __future__ import annotations

from bench.duplicate_subjects import COMPANIES, PEOPLE, TEAMS, Template, collector

TEMPLATES: list[Template] = []
_t = collector(TEMPLATES)


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
