"""The dream's outcomes step promotes what agents wrote once a second source confirms it, records
the evidence, and the digest lists the contradictions a person must settle."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memory import format as fmt
from memory.dream import digest
from memory.dream.run import dream
from memory.git import Author, Store
from memory.writes import WriteFile

THREAD_A = "https://acme.slack.com/archives/C1/p1700000000000100"
REPLY_A = "https://acme.slack.com/archives/C1/p1700000900000300?thread_ts=1700000000.000100&cid=C1"
THREAD_B = "https://acme.slack.com/archives/C2/p1700000500000200"
PR1, PR2 = "https://github.com/acme/shop/pull/1", "https://github.com/acme/shop/pull/2"
OLD = "The checkout API retries vendor calls 5 times before failing"
NEW = "The checkout API retries vendor calls 3 times before failing"
AGENT = "kind: fact; status: tentative"

CHECKOUT = f"""# checkout

- {OLD} [by: alice; added: 2026-11-01]
- {NEW} [source: {THREAD_A}; by: hippo for U1; {AGENT}; contradicts: {OLD}]
- The vendor sandbox answers 504 under load [source: {THREAD_A}; by: hippo for U1; evidence: {THREAD_B}; kind: pitfall; status: tentative]
- Checkout needs the VPN for the vendor sandbox [source: {THREAD_A}; source: {REPLY_A}; {AGENT}]
- Checkout refunds are queued in the payments-refunds queue [by: claude-code; verified: 2026-11-20; {AGENT}]
"""
DEPLOYS = f"""# deploys

- Deploys freeze on Fridays after 15:00 [by: claude-code; added: 2026-11-28; {AGENT}]
- Deploys are frozen on Fridays after 15:00 [by: bob; added: 2026-11-29]
"""
LESSON = "Tests use the shared fixtures in tests/fixtures, not inline mocks"
CONVENTIONS = f"""# Conventions: acme/shop

- {LESSON} [source: {PR1}; source: {PR2}; by: github; status: active]
"""
STACK = f"# shop\n\n- {LESSON} [by: cursor; kind: pattern; status: tentative]\n"
VPN = "The ledger export needs the office VPN"
INBOX = f"# Inbox\n\n- the ledger export needs the office VPN [source: {THREAD_B}; by: U7]\n"
LEDGER = f"# ledger\n\n- {VPN} [source: {THREAD_A}; by: hippo for U1; {AGENT}]\n"


def test_the_outcomes_step_promotes_on_a_second_source(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    files = {
        "services/checkout.md": CHECKOUT,
        "ops/deploys.md": DEPLOYS,
        "conventions/acme/shop.md": CONVENTIONS,
        "stack/shop.md": STACK,
        "inbox.md": INBOX,
        "services/ledger.md": LEDGER,
    }
    store.write([WriteFile(p, t) for p, t in files.items()], author=Author("a", "a@x"), message="s")
    report = dream(store, now=datetime(2026, 11, 30, 3))
    at = report.commits["outcomes"]

    def meta(path: str) -> dict[str, tuple[str | None, list[str]]]:
        doc = fmt.parse(store.read(path, at))
        return {e.text: (e.get("status"), e.get_all("evidence")) for e in doc.entries}

    checkout = meta("services/checkout.md")
    assert checkout[OLD] == (None, [])  # the person's entry stands
    assert checkout[NEW] == ("tentative", [])  # a contradiction waits for a person
    assert checkout["The vendor sandbox answers 504 under load"] == ("active", [THREAD_B])
    assert checkout["Checkout needs the VPN for the vendor sandbox"] == ("tentative", [])
    refunds = "Checkout refunds are queued in the payments-refunds queue"
    assert checkout[refunds] == ("active", ["verified 2026-11-20"])
    assert meta("ops/deploys.md")["Deploys freeze on Fridays after 15:00"] == ("active", ["by bob"])
    assert meta("stack/shop.md")[LESSON] == ("active", [PR2])
    assert meta("services/ledger.md")[VPN] == ("active", [THREAD_B])  # a person's inbox note
    assert report.extra["outcomes"]["promotions"] == 5
    message = store.diff(at).commit.message
    assert "- active in ops/deploys.md: 'Deploys freeze on Fridays after 15:00' (evidence: by bob)" in message  # fmt: skip

    texts = [
        b.get("text", {}).get("text", "") for b in digest.blocks(report, console_url="http://h")
    ]
    settle = next(t for t in texts if t.startswith("*Contradictions to settle*"))
    link = "<http://h/console/file/services/checkout.md|services/checkout.md>"
    assert f"• {link}: “{NEW}” contradicts “{OLD}” (source: {THREAD_A})" in settle
    active = next(t for t in texts if t.startswith("*Lessons now active*"))
    assert "• The vendor sandbox answers 504 under load" in active
