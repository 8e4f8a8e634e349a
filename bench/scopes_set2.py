"""A second held-out set for the memory router and the reminders' time parser, written for
issue 29's fixes BEFORE they were run on it (bench/scopes_set.py had been used to choose what
to fix, so it is no longer held out for the categories fixed). Never tuned on after running.

Written after reading, through the project's search tool, how reminder bots and to-do apps
document what they read (one-shot against recurring: "every weekday at 8", "every other
tuesday", "on Mondays", "on 7th", "on 7/13", "day after tomorrow", "this weekend") and how
assistant memory docs and "how to work with me" pages split a person's own preferences (global
or personal memory: communication style, focus time, tools) from project memory (decisions,
conventions, workarounds). No sentence copied; each is our own, in a team's words, and a
different `TODAY` (a Thursday at a month's end) from the first set's.

Same shape as bench/scopes_set.py: `SCOPES` (category, "me" | "team" | "ask", text) and
`TIMES` (category, "due:…" | "until:…" | "when" | "none", text).
"""

from __future__ import annotations

from datetime import date

TODAY = date(2027, 1, 28)  # a Thursday, three days before the month ends

SCOPES: list[tuple[str, str, str]] = [
    ("own style", "me", "I write commit messages in the imperative"),
    ("own style", "me", "I'd rather get one big diff than five small ones"),
    ("own style", "me", "Personally, I keep test names as full sentences"),
    ("own style", "me", "I prefer pytest fixtures over setUp methods"),
    ("own style", "me", "I indent YAML with two spaces"),
    ("own style", "me", "My go-to debugger is pdb, not an IDE"),
    ("own style", "me", "I read code top-down, so put the entry point first for me"),
    ("own background", "me", "I'm new to the billing domain"),
    ("own background", "me", "I spent five years on iOS before this job"),
    ("own background", "me", "I've never touched Terraform"),
    ("own background", "me", "English is my second language, so plain words help"),
    ("own background", "me", "I know SQL well but not window functions"),
    ("own schedule", "me", "I'm usually offline after 5pm CET"),
    ("own schedule", "me", "Fridays I keep free of meetings"),
    ("own schedule", "me", "I check Slack once an hour, not constantly"),
    ("own schedule", "me", "I'm part-time: Monday to Thursday"),
    ("own schedule", "me", "I take the kids to school, so I start at 9:30"),
    ("own schedule", "me", "Call me only if it's urgent; otherwise a DM"),
    ("own feedback", "me", "Tell me when you skip a test instead of hiding it"),
    ("own feedback", "me", "Give me the short answer first, details after"),
    ("own feedback", "me", "Don't apologise in replies to me"),
    ("own feedback", "me", "Ask me before renaming public functions"),
    ("own feedback", "me", "Note to self: my staging token expires in March"),
    ("own feedback", "me", "When you're unsure, say so to me plainly"),
    ("team agreement", "team", "We pair on anything touching payments"),
    ("team agreement", "team", "Every incident gets a written review within a week"),
    ("team agreement", "team", "Code owners approve changes to their folders"),
    ("team agreement", "team", "Demo day is the last Friday of the sprint"),
    ("team agreement", "team", "Nobody pushes straight to main"),
    ("team agreement", "team", "Our definition of done includes updated docs"),
    ("team project", "team", "The search service moved to OpenSearch in November"),
    ("team project", "team", "We dropped GraphQL because the caching was too hard"),
    ("team project", "team", "The web app is frozen during the holiday sale"),
    ("team project", "team", "acme/api still needs Python 3.10 for the vendor SDK"),
    ("team project", "team", "Webhooks are retried five times with backoff"),
    ("team project", "team", "The legacy cron box is being retired in Q2"),
    ("reference", "team", "Alert routing lives in the pagerduty-config repo"),
    ("reference", "team", "The style guide is in docs/style.md"),
    ("reference", "team", "Cost dashboards are on the finance Looker space"),
    ("reference", "team", "Access requests go through the #it-help channel"),
    ("impersonal", "team", "Sessions expire after twelve hours of inactivity"),
    ("impersonal", "team", "The CSV export caps at 50,000 rows"),
    ("impersonal", "team", "Invoices are generated on the first business day"),
    ("impersonal", "team", "The mobile build takes about twenty minutes"),
    ("stance", "ask", "I'd prefer we drop the Friday deploy freeze"),
    ("stance", "ask", "Personally I think our PR template is too long"),
    ("stance", "ask", "I want every service to publish a runbook"),
    ("stance", "ask", "My take is that we should retire the staging cluster"),
    ("stance", "ask", "I'd like the team to write ADRs for big changes"),
]

TIMES: list[tuple[str, str, str]] = [
    ("offset", "due:2027-02-11", "in a fortnight, review the error budget"),
    ("offset", "due:2027-01-30", "two days from now, delete the temp bucket"),
    ("offset", "due:2027-02-28", "recheck the quota in a month"),
    ("offset", "due:2027-02-04", "a week from now, rotate the webhook secret"),
    ("offset", "due:2027-02-18", "in three weeks, close the experiment"),
    ("offset", "due:2027-02-07", "in 10 days follow up on the invoice"),
    ("named day", "due:2027-01-30", "the day after tomorrow, restart the indexer"),
    ("named day", "due:2027-01-30", "day after tomorrow: send the RFC round"),
    ("named day", "due:2027-01-29", "tomorrow, send the daily digest by hand"),
    ("named day", "due:2027-02-04", "on Thursday, sync with QA"),
    ("named day", "due:2027-02-02", "next Tuesday, update the roadmap"),
    ("named day", "due:2027-01-30", "this weekend, run the big reindex"),
    ("named day", "due:2027-01-30", "over the weekend, let the soak test run"),
    ("named day", "due:2027-01-29", "before the weekend, merge the docs PR"),
    ("named day", "due:2027-01-31", "by the end of the month, file the expenses"),
    ("named day", "due:2027-01-29", "check the weekly report on Friday"),
    ("date", "due:2027-02-03", "on the 3rd, renew the staging certs"),
    ("date", "due:2027-01-30", "on the 30th, pay the CDN bill"),
    ("date", "due:2027-03-15", "on the 15th of March, archive the Q4 logs"),
    ("date", "due:2027-02-14", "Feb 14: turn the promo banner off"),
    ("date", "due:2028-01-10", "on Jan 10 renew the domain"),
    ("date", "due:2027-02-10", "on 2027-02-10 drop the old index"),
    ("numeric date", "due:2027-02-20", "on 2/20 send the board pack"),
    ("numeric date", "due:2027-02-20", "20/2 move the standup"),
    ("numeric date", "none", "on 3/4 migrate the DNS"),
    ("numeric date", "none", "5/6 check the renewal"),
    ("before/after/until", "until:2027-02-05", "keep the maintenance page until the 5th"),
    ("before/after/until", "due:2027-01-31", "before Monday, tag the release"),
    ("before/after/until", "due:2027-01-30", "after Friday, re-enable autoscaling"),
    ("before/after/until", "until:2027-02-03", "the read-only mode stays until Feb 3"),
    ("trigger", "when", "after the offsite, book the retro"),
    ("trigger", "when", "once acme/api#301 is merged, remove the flag"),
    ("trigger", "when", "when legal signs off, publish the policy"),
    ("trigger", "when", "as soon as the new laptop arrives, set up the VPN"),
    ("recurring", "none", "every Thursday, check the on-call handover"),
    ("recurring", "none", "weekly: prune the stale branches"),
    ("recurring", "none", "each morning, glance at the error dashboard"),
    ("recurring", "none", "on Mondays, post the sprint goals"),
    ("recurring", "none", "every 3 days rotate the test tokens"),
    ("recurring", "none", "check the backups twice a week"),
    ("recurring", "none", "monthly, review the cloud bill"),
    ("recurring", "none", "every weekday at 8, read the overnight alerts"),
    ("no time", "none", "clean up the unused S3 buckets"),
    ("no time", "none", "someday migrate to the new linter"),
    ("no time", "none", "ASAP fix the typo in the footer"),
]
