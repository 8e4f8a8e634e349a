"""A held-out set for the memory router (memory/scopes.py) and the reminders' time parser
(memory/reminders/timing.py), written for issue 29 after both were built and tested on their
authors' own examples. It then chose issue 29's fixes (first-person habits, "the day after
tomorrow", recurrence, fortnights, weekends, "the 20th", numeric dates), so for those categories
it is in-sample; bench/scopes_set2.py is the held-out set for them.

Written after reading how people phrase these things in public material: "how to work with me"
documents and manager READMEs (working hours, channels, feedback style, background), the
user / project / team split of coding-assistant memory docs (personal style preferences against
project conventions, freezes, decisions with reasons, pointers to dashboards), team working
agreements ("we review within a day", "standup starts at…"), and the time phrases reminder bots
and to-do apps document ("in 2 hours", "tomorrow at 3pm", "next friday", "day after tomorrow",
"this weekend", "jan 27", "every monday", "every 2 weeks starting next Saturday", short forms
like "3d"). No sentence is copied from them; each is our own, in a team's words.

`SCOPES`: (category, expected, text), expected "me", "team" or "ask" (the words point both ways:
the right answer is the question). `TIMES`: (category, expected, text) with `TODAY` a Wednesday;
expected "due:YYYY-MM-DD", "until:YYYY-MM-DD", "when" (a trigger, no date) or "none" (no time
the format can hold: the door should refuse and say how to write one).
"""

from __future__ import annotations

from datetime import date

TODAY = date(2026, 12, 2)  # a Wednesday

SCOPES: list[tuple[str, str, str]] = [
    # --- a person's own style and tools ------------------------------------------------------
    ("own style", "me", "I'd rather see type hints on every function I write"),
    ("own style", "me", "In my editor tabs render as four columns"),
    ("own style", "me", "I format SQL with keywords in upper case"),
    ("own style", "me", "I like small commits with long messages"),
    ("own style", "me", "Personally I avoid one-letter variable names"),
    ("own style", "me", "I use fish, not bash, as my shell"),
    ("own style", "me", "Dark theme everywhere, please, when you show me screenshots"),
    ("own style", "me", "I never use the mouse in the terminal"),
    # --- a person's background and role --------------------------------------------------------
    ("own background", "me", "I've written Go for eight years but Rust is new to me"),
    ("own background", "me", "I'm the newest on the payments rota"),
    ("own background", "me", "I come from a data science background"),
    ("own background", "me", "Explain frontend things to me with backend analogies"),
    ("own background", "me", "I don't know Kubernetes well yet"),
    ("own background", "me", "My role is staff engineer on the platform side"),
    # --- a person's schedule and how to reach them -------------------------------------------
    ("own schedule", "me", "I'm off every second Friday"),
    ("own schedule", "me", "I read email twice a day, at 10 and at 4"),
    ("own schedule", "me", "Ping me on Slack for quick things, email for anything long"),
    ("own schedule", "me", "Mornings are my focus time; no meetings before noon for me"),
    ("own schedule", "me", "I'm in Lisbon, so my day ends at 6pm WET"),
    ("own schedule", "me", "I work from the office on Tuesdays and Thursdays"),
    ("own schedule", "me", "Don't expect replies from me at weekends"),
    # --- what a person asks of the assistant for themselves ----------------------------------
    ("own feedback", "me", "Keep your answers to me short, no recap at the end"),
    ("own feedback", "me", "When you explain a diff to me, lead with the risky part"),
    ("own feedback", "me", "Stop asking me to confirm before small refactors"),
    ("own feedback", "me", "Show me the command before you run it"),
    ("own feedback", "me", "Note to self: the staging VPN profile is in my downloads"),
    ("own feedback", "me", "remind me to rerun the flaky suite after lunch"),
    # --- what the team agreed on --------------------------------------------------------------
    ("team agreement", "team", "We review pull requests within one working day"),
    ("team agreement", "team", "Standup starts at 9:30 sharp, cameras optional"),
    ("team agreement", "team", "Anyone stuck for an hour on a ticket asks for help"),
    ("team agreement", "team", "Every PR needs two approvals before merging to main"),
    ("team agreement", "team", "Design docs go to the architecture channel before coding starts"),
    ("team agreement", "team", "Nobody merges on Friday afternoons"),
    ("team agreement", "team", "Retro is every other Thursday and everyone brings one item"),
    ("team agreement", "team", "Our sprint is two weeks long"),
    # --- the team's project: freezes, decisions and their reasons ----------------------------
    ("team project", "team", "Non-critical merges are frozen from Thursday for the app release"),
    ("team project", "team", "The old session middleware was replaced because legal objected"),
    ("team project", "team", "Billing moves to the new ledger in January"),
    ("team project", "team", "The integration tests hit a real Postgres, never a mock"),
    ("team project", "team", "Search reindexing runs at 2am UTC"),
    ("team project", "team", "acme/web pins Node 20 until the upgrade lands"),
    ("team project", "team", "Feature flags older than 90 days get removed"),
    ("team project", "team", "The mobile app talks to the gateway, never to services directly"),
    # --- pointers to where things are ---------------------------------------------------------
    ("reference", "team", "Latency graphs for the API live on the grafana board api-latency"),
    ("reference", "team", "Pipeline bugs are tracked in the INGEST project in Linear"),
    ("reference", "team", "The vendor's status page is status.example-vendor.com"),
    ("reference", "team", "Runbooks for payouts are under docs/runbooks/payouts"),
    ("reference", "team", "Ask in #sre-help for access to prod logs"),
    ("reference", "team", "The shared test account is qa@example.com"),
    # --- impersonal facts (no one named) ------------------------------------------------------
    ("impersonal", "team", "The sandbox resets every night at midnight"),
    ("impersonal", "team", "Card tokens expire after fifteen minutes"),
    ("impersonal", "team", "The exporter skips rows with a null region"),
    ("impersonal", "team", "Large uploads time out after 30 seconds at the proxy"),
    ("impersonal", "team", "The nightly report is emailed to finance"),
    # --- a person's stance on the team's practice: both ways, ask -----------------------------
    ("stance", "ask", "I think we should squash-merge everything"),
    ("stance", "ask", "I'd like our standups to stay under fifteen minutes"),
    ("stance", "ask", "I want the team to stop deploying on Fridays"),
    ("stance", "ask", "My view: our on-call handover needs a written checklist"),
    ("stance", "ask", "I prefer that we keep release notes in the repo"),
    ("stance", "ask", "For me the deploy should wait for the canary to be green"),
]

TIMES: list[tuple[str, str, str]] = [
    # --- offsets from today -------------------------------------------------------------------
    ("offset", "due:2026-12-05", "check the error budget in 3 days"),
    ("offset", "due:2026-12-16", "rotate the signing key in two weeks"),
    ("offset", "due:2026-12-09", "look at the canary numbers in a week"),
    ("offset", "due:2026-12-07", "follow up with the vendor within 5 days"),
    ("offset", "due:2026-12-12", "archive the old dashboards in 10 days"),
    ("offset", "due:2027-01-02", "renew the certificate in a month"),
    ("offset", "due:2026-12-16", "revisit the budget in a fortnight"),
    ("offset", "due:2026-12-09", "ping legal a week from now"),
    ("offset", "due:2026-12-05", "drop the temp table 3d from now"),
    # --- named days ---------------------------------------------------------------------------
    ("named day", "due:2026-12-03", "send the summary tomorrow"),
    ("named day", "due:2026-12-03", "tomorrow at 3pm, check the migration"),
    ("named day", "due:2026-12-04", "close the incident the day after tomorrow"),
    ("named day", "due:2026-12-07", "on Monday, rerun the load test"),
    ("named day", "due:2026-12-04", "this Friday we cut the release branch"),
    ("named day", "due:2026-12-03", "by Thursday, tell QA what changed"),
    ("named day", "due:2026-12-07", "next week, move the cron to the new cluster"),
    ("named day", "due:2026-12-02", "tonight, turn the debug logging off"),
    ("named day", "due:2026-12-04", "before the weekend, clean up the feature flags"),
    ("named day", "due:2026-12-05", "this weekend run the backfill"),
    ("named day", "due:2026-12-31", "by the end of the month, close the old tickets"),
    ("named day", "due:2026-12-04", "end of the week: send the status update"),
    # --- dates --------------------------------------------------------------------------------
    ("date", "due:2026-12-15", "on 2026-12-15 deprecate the v1 endpoint"),
    ("date", "due:2026-12-18", "Dec 18: freeze the config"),
    ("date", "due:2026-12-21", "on 21 December drain the old nodes"),
    ("date", "due:2027-01-27", "Jan 27 is the day to renew the domain"),
    ("date", "due:2026-12-24", "December 24th, switch the pager to holiday mode"),
    ("date", "due:2026-12-20", "on the 20th, pay the hosting invoice"),
    ("date", "due:2026-12-15", "12/15 send the quarterly numbers"),
    ("date", "due:2027-03-01", "on March 1st review the access list"),
    # --- before, after, until -----------------------------------------------------------------
    ("before/after/until", "due:2026-12-03", "before Friday, merge the hotfix"),
    ("before/after/until", "due:2026-12-16", "after 15 December remove the banner"),
    ("before/after/until", "until:2026-12-20", "keep the banner up until 20 December"),
    ("before/after/until", "until:2027-01-05", "the freeze holds till Jan 5"),
    ("before/after/until", "due:2026-12-08", "after Monday, re-enable the alerts"),
    ("before/after/until", "due:2026-12-14", "the audit must be done before Dec 15"),
    # --- triggers without a date --------------------------------------------------------------
    ("trigger", "when", "after the migration, re-check the rate limits"),
    ("trigger", "when", "once acme/shop#88 is merged, delete the shim"),
    ("trigger", "when", "when the vendor replies, update the runbook"),
    ("trigger", "when", "as soon as the freeze lifts, ship the SDK"),
    ("trigger", "when", "rotate the keys when Priya is back"),
    ("trigger", "when", "remove the workaround once the upstream fix is released"),
    ("trigger", "when", "whenever the queue backs up again, page the data team"),
    # --- recurring (the format has no recurrence: should be refused, not read as one day) -----
    ("recurring", "none", "every Monday, check the cost report"),
    ("recurring", "none", "every other week review the on-call load"),
    ("recurring", "none", "daily at 9, look at the overnight alerts"),
    ("recurring", "none", "every 2 weeks starting next Saturday, rotate the secrets"),
    ("recurring", "none", "on the first of every month, export the invoices"),
    # --- no time at all -----------------------------------------------------------------------
    ("no time", "none", "update the onboarding doc"),
    ("no time", "none", "look into the flaky checkout test sometime"),
    ("no time", "none", "we should really document the retry policy"),
    ("no time", "none", "later: tidy the terraform modules"),
    ("no time", "none", "soon-ish, benchmark the new serializer"),
]
