"""The quality gate (memory/trust/agent_gate.py) and the contradiction check (memory/facts/contradictions.py), pure."""

from __future__ import annotations

import pytest

from memory import format as fmt
from memory.facts import contradictions as cx
from memory.trust.agent_gate import Gate
from memory.trust.rules import kind_of, origins
from memory.writes import AddEntry, RemoveEntry, ReplaceEntry, WriteFile

SLACK = "https://acme.slack.com/archives/C1/p1700000000000100"
OTHER_THREAD = "https://acme.slack.com/archives/C2/p1700000500000200"


@pytest.mark.parametrize(
    ("existing", "new", "verdict"),
    [
        (
            "The checkout API retries vendor calls 3 times before failing",
            "The checkout API retries vendor calls 5 times before failing",
            "contradict",
        ),
        ("Feature flags are enabled in staging", "Feature flags are disabled in staging", "contradict"),
        (
            "The staging database is reset every night at 02:00",
            "The staging database is no longer reset every night at 02:00",
            "contradict",
        ),
        ("Run the migrations before deploying the API", "Run the migrations after deploying the API", "contradict"),
        ("Deploys freeze on Fridays after 15:00", "Deploys are frozen on Fridays after 15:00", "confirm"),
        (
            "The nightly export job writes to the analytics bucket",
            "the nightly export job writes to the analytics bucket",
            "confirm",
        ),
        (
            "The payments service uses Postgres 14",
            "The payments service uses Postgres 14 with pgbouncer in transaction mode",
            "refine",
        ),
        ("504s from checkout come from the vendor sandbox", "Redis failover takes 30 seconds", "new"),
        ("The on-call rotation changes on Mondays at 10:00", "Checkout logs go to Loki, not Elastic", "new"),
    ],
)  # fmt: skip
def test_verdicts_by_claims_and_words(existing: str, new: str, verdict: str) -> None:
    """confirm / refine / contradict / new on realistic entries, deterministically."""
    assert cx.compare(existing, new)[0] == verdict


def entries(text: str) -> list[fmt.Entry]:
    return fmt.parse(text).entries


def test_the_contradicted_entry_is_named() -> None:
    """Of several entries on the subject, the one contradicted is named (revoked ones ignored)."""
    known = entries(
        "# checkout\n"
        "- The checkout API retries vendor calls 5 times before failing\n"
        "- The checkout API retries vendor calls 3 times before failing [status: revoked]\n"
        "- The checkout API times out after 30 seconds\n"
    )
    found = cx.check("The checkout API retries vendor calls 3 times before failing", known)
    assert found.verdict == "contradict" and found.entry is known[0]


def test_kinds() -> None:
    assert kind_of("Stack note") == "stack-note" and kind_of("PITFALL") == "pitfall"
    assert kind_of("gossip") == "fact" and kind_of(None, "win") == "win"


def test_agent_entries_get_a_kind_and_start_tentative() -> None:
    """Whatever status the agent wrote, its entry starts tentative with a known kind."""
    gate = Gate(kind="pitfall")
    ops = gate.apply(
        [AddEntry("ops/redis.md", "Redis failover takes 30 seconds", (("status", "active"),))],
        lambda p: None,
    )
    assert ops == [
        AddEntry(
            "ops/redis.md",
            "Redis failover takes 30 seconds",
            (("kind", "pitfall"), ("status", "tentative")),
        )
    ]
    assert [x.verdict for x in gate.landed] == ["new"]


PERSON = "# checkout\n- The checkout API retries vendor calls 5 times before failing [by: alice]\n"


def test_a_contradiction_of_an_active_entry_lands_beside_it() -> None:
    """Added or edited in place, the agent's contradicting line never overwrites the person's."""
    new = "The checkout API retries vendor calls 3 times before failing"
    old = "The checkout API retries vendor calls 5 times before failing"
    for op in (AddEntry("c.md", new, (("source", SLACK),)), ReplaceEntry("c.md", old, new)):
        gate = Gate()
        (out,) = gate.apply([op], lambda p: PERSON)
        assert isinstance(out, AddEntry) and out.text == new
        assert dict(out.meta)["contradicts"] == old
        assert dict(out.meta)["status"] == "tentative" and gate.contradictions == 1


def test_a_confirmation_from_another_thread_is_evidence() -> None:
    """The same fact from a second thread adds that thread (the writer's origin, hippo's record)
    as evidence; the same thread again (another message of it) adds nothing, and neither does a
    source the agent typed."""
    text = "- Deploys freeze on Fridays after 15:00 [source: %s; kind: fact; status: tentative]\n"
    current = "# deploys\n" + text % SLACK
    again = f"{SLACK[:-4]}0999?thread_ts=1700000000.000100&cid=C1"
    gate = Gate(origin=again)
    assert gate.apply([AddEntry("d.md", "Deploys are frozen on Fridays after 15:00", (("source", OTHER_THREAD),))], lambda p: current) == []  # fmt: skip
    gate = Gate(origin=OTHER_THREAD)
    (op,) = gate.apply(
        [AddEntry("d.md", "Deploys are frozen on Fridays after 15:00", (("source", again),))],
        lambda p: current,
    )
    assert isinstance(op, ReplaceEntry) and ("evidence", OTHER_THREAD) in op.meta
    assert [x.verdict for x in gate.landed] == ["confirm"]


def test_origins_count_a_thread_once_and_never_a_typed_source() -> None:
    thread = f"{SLACK}?thread_ts=1700000000.000100"
    (e,) = entries(f"- x y z [source: a; source: b; by: bot; evidence: {SLACK}; evidence: {thread}]\n")  # fmt: skip
    assert origins(e) == ["by bot", "slack C1 1700000000.000100"]


def test_a_whole_file_gates_its_new_lines() -> None:
    """write_file / content: new entries are stamped, kept ones left alone."""
    gate = Gate()
    new = PERSON + "- The checkout API retries vendor calls 3 times before failing\n"
    (op,) = gate.apply([WriteFile("c.md", new)], lambda p: PERSON)
    assert isinstance(op, WriteFile)
    last = entries(op.content)[-1]
    assert last.get("status") == "tentative" and last.get("kind") == "fact"
    assert last.get("contradicts") and entries(op.content)[0].get("status") is None


def test_a_metadata_edit_keeps_status() -> None:
    """An agent re-tagging its entry cannot make it active."""
    current = "- Redis failover takes 30 seconds [kind: fact; status: tentative]\n"
    text = "Redis failover takes 30 seconds"
    (op,) = Gate().apply(
        [ReplaceEntry("r.md", text, text, (("kind", "win"), ("status", "active")))],
        lambda p: current,
    )
    assert isinstance(op, ReplaceEntry) and dict(op.meta)["status"] == "tentative"


def test_a_second_thread_repeating_a_disputed_claim_is_evidence_on_it() -> None:
    """Thread B says what thread A's disputed line says: evidence there, not a second line."""
    new = "The checkout API retries vendor calls 3 times before failing"
    disputed = f"- {new} [source: {SLACK}; kind: fact; status: tentative; contradicts: x y z]\n"
    gate = Gate(origin=OTHER_THREAD)
    (op,) = gate.apply(
        [AddEntry("c.md", new, (("source", OTHER_THREAD),))], lambda p: PERSON + disputed
    )
    assert isinstance(op, ReplaceEntry) and op.match == new
    assert ("evidence", OTHER_THREAD) in op.meta and gate.contradictions == 0


def test_removing_the_contradicted_entry_is_dropped() -> None:
    """A delete of the person's entry and an add of the contradicting one: the entry stays."""
    old = "The checkout API retries vendor calls 5 times before failing"
    new = "The checkout API retries vendor calls 3 times before failing"
    gate = Gate()
    ops = gate.apply([RemoveEntry("c.md", old), AddEntry("c.md", new)], lambda p: PERSON)
    assert [type(op).__name__ for op in ops] == ["AddEntry"]
    assert dict(ops[0].meta)["contradicts"] == old  # type: ignore[union-attr]


def test_a_long_whole_file_is_gated_in_one_pass_within_a_budget() -> None:
    """2,000 old entries and 5,000 new ones: one pass over the lines, at most MAX_COMPARISONS
    entry pairs compared (the rest land as new); a file over the size cap is left to the
    write path, which refuses it."""
    import time

    old = "# big\n\n" + "".join(f"- service {i} answers on port {i + 1000}\n" for i in range(2000))
    new = old + "".join(f"- worker {i} drains queue {i} nightly\n" for i in range(5000))
    gate = Gate()
    started = time.perf_counter()
    (op,) = gate.apply([WriteFile("big.md", new)], lambda p: old)
    assert time.perf_counter() - started < 10
    assert isinstance(op, WriteFile)
    got = entries(op.content)
    assert len(got) == 7000 and got[0].get("status") is None
    assert all(e.get("status") == "tentative" for e in got[2000:])
    assert gate.budget >= 0 and len(gate.landed) == 5000
    huge = WriteFile("huge.md", "- a line of text\n" * 200_000)
    assert Gate().apply([huge], lambda p: None) == [huge]
