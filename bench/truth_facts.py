"""The facts of bench/truth.py's month, as people write them (see truth_world.py for the world)."""

from __future__ import annotations

from bench.truth_world import SLACK, Fact

PAY, SITE, INFRA = "services/payments.md", "services/site.md", "infra/runners.md"
TF, ONCALL, REL = "infra/terraform.md", "teams/oncall.md", "releases/process.md"
STAGING, ALERTS, CACHE = "ops/staging.md", "ops/alerts.md", "ops/cache.md"
REFUNDS, STORAGE, STRIPE = "runbooks/refunds.md", "decisions/storage.md", "vendors/stripe.md"
LEGACY, LINKS, TEAM, INBOX = "projects/legacy.md", "docs/links.md", "teams/payments.md", "inbox.md"
TOPICS = {
    PAY: "Payments service: the shopco/payments API, payouts and ledger",
    SITE: "Site: the shopco/site storefront",
    INFRA: "Build runners and keys",
    TF: "Terraform and Kubernetes: shopco/infra",
    ONCALL: "On-call",
    REL: "Releases",
    STAGING: "Staging",
    ALERTS: "Alerts",
    CACHE: "Cache",
    REFUNDS: "Refunds",
    STORAGE: "Storage decisions",
    STRIPE: "Stripe, the card vendor",
    LEGACY: "Legacy tools",
    LINKS: "Links",
    TEAM: "Payments team",
}


def facts(site: str) -> list[Fact]:
    """Every fact of the month; `site` is the loopback web site's base URL."""
    out: list[Fact] = []

    def add(path: str, text: str, kind: str, **kw: object) -> None:
        out.append(Fact(len(out) + 1, path, text, kind, **kw))  # type: ignore[arg-type]

    # files, in people's phrasing: 9 of 14 move or go during the month
    add(
        PAY,
        "the billing exporter lives at tools/export.py in shopco/payments",
        "file",
        change=4,
        expect="fixed:tools/exporter.py",
    )
    add(
        SITE,
        "shopco/site releases run scripts/release.sh from a clean checkout",
        "file",
        change=7,
        expect="removed",
    )
    add(
        INFRA,
        "when a runner disk fills up follow docs/runbooks/disk-full.md in the infra repo",
        "file",
        change=10,
        expect="fixed:docs/runbooks/disk.md",
    )
    add(
        PAY,
        "shopco/payments' retry settings are config/retry.toml",
        "file",
        change=13,
        expect="removed",
    )
    add(
        SITE,
        "the checkout page layout is src/pages/checkout.tsx in shopco/site",
        "file",
        change=16,
        expect="fixed:src/app/checkout/page.tsx",
    )
    add(
        INFRA,
        "rotate the deploy keys with `scripts/rotate-keys.sh` (shopco/infra)",
        "file",
        change=19,
        expect="removed",
    )
    add(
        PAY,
        "payouts are scheduled by src/payouts/schedule.py, shopco/payments",
        "file",
        change=22,
        expect="fixed:src/payouts/scheduler.py",
    )
    add(
        SITE,
        "image domains for the storefront are allowed in next.config.js in the site repo",
        "file",
        change=25,
        expect="fixed:next.config.mjs",
    )
    add(
        ONCALL,
        "payments on-call expectations are written down in docs/oncall.md (shopco/payments)",
        "file",
        change=27,
        expect="removed",
    )
    add(PAY, "Stripe webhooks are verified in src/webhooks/stripe.py in shopco/payments", "file")
    add(TF, "prod networking is declared in terraform/prod/main.tf, repo shopco/infra", "file")
    add(SITE, "site deploys are driven by .github/workflows/deploy.yml in shopco/site", "file")
    add(TF, "ingress timeouts are 60s, see k8s/base/ingress.yaml in shopco/infra", "file")
    add(PAY, "FX rates are cached for ten minutes by src/fx/rates.py in shopco/payments", "file")
    # pull requests and issues: 12 of 14 change state
    add(
        PAY,
        "the refund rounding fix shopco/payments#41 is still open",
        "pr",
        change=3,
        expect="fixed:merged",
    )
    add(
        PAY,
        "the ledger index change shopco/payments#42 is open, do not deploy it alone",
        "pr",
        change=9,
        expect="fixed:merged",
    )
    add(
        TEAM,
        "the fee experiment in shopco/payments#43 is open",
        "pr",
        change=11,
        expect="fixed:closed",
    )
    add(
        PAY,
        "waiting on https://github.com/shopco/payments/pull/44 for the payout batching, open",
        "pr",
        change=15,
        expect="fixed:merged",
    )
    add(TEAM, "the currency cleanup shopco/payments#45 is open and needs a second review", "pr")
    add(PAY, "shopco/payments#46 was merged and added idempotency keys to payouts", "pr")
    add(
        SITE,
        "the Black Friday banner shopco/site#88 is open",
        "pr",
        change=6,
        expect="fixed:merged",
    )
    add(
        SITE, "shopco/site#89 (lazy product images) is open", "pr", change=12, expect="fixed:merged"
    )
    add(
        SITE,
        "the new search page in shopco/site#90 is still open",
        "pr",
        change=20,
        expect="fixed:closed",
    )
    add(
        REL,
        "the release notes generator shopco/site#91 is open",
        "pr",
        change=21,
        expect="fixed:merged",
    )
    add(TF, "shopco/infra#19 (spot build runners) is open", "pr", change=18, expect="fixed:merged")
    add(
        TF,
        "the Postgres 16 upgrade is shopco/infra#20, open",
        "pr",
        change=24,
        expect="fixed:merged",
    )
    add(
        REFUNDS,
        "partial refunds fail for EUR cards, tracked in shopco/payments#51 which is open",
        "pr",
        change=8,
        expect="fixed:closed",
    )
    add(
        SITE,
        "the SEO regression is tracked in https://github.com/shopco/site/issues/95, open",
        "pr",
        change=17,
        expect="fixed:closed",
    )
    # repositories
    add(
        LEGACY, "the repo shopco/legacy-tools is active", "repo", change=14, expect="fixed:archived"
    )
    add(SITE, "the shopco/site repo is active", "repo")
    # facts from Slack threads: 3 of 6 messages are deleted
    for i, (path, text, day) in enumerate(
        [
            (REFUNDS, "refunds over 500 EUR need a second approver", 0),
            (STRIPE, "the vendor sandbox resets every night at 01:00 UTC", 5),
            (ALERTS, "payout failures above 2% page the payments on-call", 0),
            (TEAM, "the payments team keeps Thursday afternoons free of meetings", 15),
            (STORAGE, "ledger rows are never updated, only appended", 0),
            (STAGING, "the staging card vendor account is shared with QA", 23),
        ],
        start=1,
    ):
        link = f"{SLACK}/C0OPS/p1730000000000{i}00"
        add(path, text, "slack", slack=link, change=day, expect="removed" if day else "")
    # pages on an allow-listed host: one goes 404
    add(LINKS, f"the refunds runbook is {site}/runbooks/refunds", "url")
    add(LINKS, f"the public status page is {site}/status", "url")
    add(
        LINKS,
        f"the pricing page for partners is {site}/pricing",
        "url",
        change=12,
        expect="removed",
    )
    # prose: true all month, nothing checks it
    for path, text in [
        (PAY, "the payments API p99 is about 180 ms on a normal day"),
        (TEAM, "alice owns the exporter and bob owns reconciliation"),
        (STORAGE, "the team chose Postgres over MySQL for the ledger in 2024"),
        (STRIPE, "the card vendor sandbox times out under parallel load"),
        (REL, "release notes are written by whoever merges the last pull request"),
        (CACHE, "product pages are cached for sixty seconds at the CDN"),
        (ALERTS, "a 502 from the CDN usually means the origin is down"),
        (TEAM, "order ids are ULIDs, not UUIDs"),
        (STAGING, "the admin panel is only reachable through the VPN"),
        (REFUNDS, "promo codes are case-insensitive"),
        (STRIPE, "Stripe sends payout events up to three days late"),
        (INFRA, "build runners are rebuilt from the golden image every quarter"),
        (TF, "Terraform state lives in S3 with DynamoDB locking"),
        (ONCALL, "weekend on-call gets a day off in lieu"),
        (SITE, "the storefront must stay under 200 KB of JavaScript per page"),
    ]:
        add(path, text, "prose")
    # opposites: the second, newer one says the reverse in the same words
    for key, (path, first, second, day) in enumerate(
        [
            (
                CACHE,
                "restart the cache before the API after a deploy",
                "restart the API before the cache after a deploy",
                12,
            ),
            (
                PAY,
                "payments retries a failed payout 5 times",
                "payments retries a failed payout 3 times",
                15,
            ),
            (
                STAGING,
                "staging is reset every Sunday night",
                "staging is no longer reset every Sunday night",
                20,
            ),
        ],
    ):
        add(path, first, "opposite", group=f"o{key}")
        add(path, second, "opposite", group=f"o{key}", day=day)
    # duplicate groups: the same fact saved again in other words, often from the inbox
    groups = [
        [
            (ONCALL, "on-call hands over every Monday at 10:00", 1),
            (INBOX, "the on-call rotation changes Mondays at 10am", 3),
            (ONCALL, "Monday 10:00 on-call handover", 8),
        ],
        [
            (REL, "shopco/site releases pause in Black Friday week", 1),
            (INBOX, "no shopco/site releases during Black Friday week", 5),
        ],
        [
            (STAGING, "the staging database is wiped every Sunday morning", 1),
            (INBOX, "staging DB gets reset each Sunday morning", 9),
        ],
        [
            (ALERTS, "alerts for payouts page the payments on-call", 1),
            (ONCALL, "the payments on-call gets paged for payout alerts", 11),
        ],
        [
            (REL, "deploys are frozen on Fridays after 16:00", 1),
            (INBOX, "deploy freeze on Fridays after 4pm", 14),
        ],
        [
            (PAY, "reconciliation runs from src/ledger/reconcile.py in shopco/payments", 1),
            (INBOX, "shopco/payments' reconciler is src/ledger/reconcile.py", 13),
        ],
        [
            (REFUNDS, "the refund rounding bug is tracked in shopco/payments#52, open", 1),
            (INBOX, "shopco/payments#52 tracks rounding errors in refunds (open)", 16),
            (TEAM, "rounding errors in refunds: shopco/payments#52, still open", 19),
        ],
    ]
    for g, members in enumerate(groups):
        for path, text, day in members:
            add(path, text, "dup", group=f"d{g}", day=day)
    # forgotten by a person, then said again in more words
    add(
        ALERTS,
        "the disk alert on build-runner-3 can be ignored",
        "forgotten",
        forget=6,
        again="nobody acts on the disk alert on build-runner-3 since it can be ignored",
        again_day=9,
    )
    add(
        PAY,
        "the old exporter writes CSV with semicolons for finance",
        "forgotten",
        forget=18,
        again="the old exporter still writes its CSV with semicolons for finance, as agreed",
        again_day=21,
    )
    return out
