"""The dream's lessons step (issue 39, item 1): what recurs across sessions in the archive is
proposed as a lesson, citing every episode, with their weakest standing; not what the memory
says, nor what a person settled."""

from __future__ import annotations

import json
from datetime import datetime

from memory import format as fmt
from memory.dream import proposing
from memory.dream.run import dream
from memory.git import Author, Store
from memory.trust import proposals
from memory.writes import WriteFile

ALICE = Author("alice", "alice@example.com")
ERROR = "ModuleNotFoundError: No module named 'psycopg2'"


def session(sid: str, day: str, **fields: object) -> str:
    return json.dumps({"type": "session", "session": sid, "at": f"{day}T10:00:00+00:00", **fields})


def seed_month(store: Store, extra: dict[str, str] | None = None) -> None:
    """Three sessions meet the same import error (two fix it by pinning), one asks something
    else; three threads ask how to get access to staging's Grafana dashboards."""
    days = {
        "2026-11-03": [
            session("s1", "2026-11-03", summary=f"Ran `pytest -x tests/api` and got {ERROR}.",
                    outcome="Fixed by pinning psycopg2-binary==2.9.9 in requirements.txt.",
                    files_touched=["requirements.txt"], by="claude-code", role="agent"),
            session("s2", "2026-11-03", summary="Renamed the checkout feature flag.",
                    files_touched=["web/flags.py"], by="claude-code", role="agent"),
        ],
        "2026-11-12": [
            session("s3", "2026-11-12", summary=f"`pytest tests/api/test_orders.py` failed: {ERROR}",
                    outcome="Fixed by pinning psycopg2-binary in requirements.txt again.",
                    files_touched=["requirements.txt"], by="cursor", role="agent"),
        ],
        "2026-11-20": [
            session("s4", "2026-11-20", errors=[ERROR], commands=["pytest -k refunds"],
                    summary="The api tests would not import.", by="claude-code", role="agent"),
        ],
    }  # fmt: skip
    for n, day in enumerate(("2026-11-05", "2026-11-14", "2026-11-26")):
        q = [
            "How do I get access to the staging Grafana dashboards?",
            "how do we get access to staging grafana dashboards",
            "Access to the Grafana dashboards for staging, how?",
        ][n]
        thread = {"type": "thread", "question": q, "source":
                  f"https://acme.slack.com/archives/C1/p17000000000001{n}0", "asked_by": "U1",
                  "files_read": ["runbooks/staging.md"]}  # fmt: skip
        days.setdefault(day, []).append(json.dumps(thread))
    files = {f"archive/{d}.jsonl": "\n".join(lines) + "\n" for d, lines in days.items()}
    files["runbooks/staging.md"] = "# Staging\n\n- staging runs in eu-west-1\n"
    store.write(
        [WriteFile(p, t) for p, t in {**files, **(extra or {})}.items()],
        author=ALICE, message="seed",
    )  # fmt: skip


def lessons(store: Store) -> list[proposals.Proposal]:
    tree = {p: b.decode() for p, b in store.tree().items()}
    return [p for p in proposals.pending(tree) if p.kind == "lesson"]


def test_recurrences_become_proposed_lessons_citing_their_episodes(store: Store) -> None:
    """The same error in three sessions and the same question in three threads become two
    proposals in proposals.md (one commit, `dream(lessons)`), each citing every episode by its
    archive date and line, tentative (agents' episodes), naming whose they were; the one-off
    session is cited by neither."""
    seed_month(store)
    dream(store, now=datetime(2026, 11, 30, 3))
    found = {p.text.split(" ", 1)[0]: p for p in lessons(store)}
    error = next(p for p in lessons(store) if "psycopg2" in p.text)
    meta = dict(error.meta)
    assert meta["episodes"] == "2026-11-03#L1, 2026-11-12#L1, 2026-11-20#L1"
    assert meta["status"] == "tentative" and meta["from"] == "claude-code, cursor"
    assert meta["kind"] == "pitfall" and error.path == "inbox.md"
    assert error.text.startswith("`pytest` fails with “ModuleNotFoundError: No module named")
    assert "what fixed it: pinning psycopg2-binary in requirements.txt again" in error.text
    asked = next(p for p in lessons(store) if p.text.startswith("Asked in 3 threads"))
    assert asked.path == "runbooks/staging.md" and dict(asked.meta)["kind"] == "fact"
    assert "2026-11-03#L2" not in str(found)
    (commit,) = [c for c in store.log(limit=20) if c.summary.startswith("dream(lessons)")]
    assert "2 lessons proposed" in commit.summary


def test_what_the_memory_says_or_a_person_settled_is_not_proposed_again(store: Store) -> None:
    """A lesson the memory already holds (the error's words in a topic) is not proposed; one a
    person dropped is not proposed the next night (its signature kept apart in the state), nor is
    one still waiting proposed twice."""
    said = {"runbooks/python.md": f"# Python\n\n- pin psycopg2-binary: `{ERROR}` otherwise\n"}
    seed_month(store, said)
    dream(store, now=datetime(2026, 11, 30, 3))
    assert [p.text[:9] for p in lessons(store)] == ["Asked in "]
    tree = {p: b.decode() for p, b in store.tree().items()}
    (asked,) = lessons(store)
    ops = proposals.settle(tree, asked, accept=False, by="alice", today="2026-11-30")
    store.write(ops, author=ALICE, message="drop")
    dream(store, now=datetime(2026, 12, 1, 3))
    assert lessons(store) == []
    state = json.loads(store.read(".dream/state.json"))
    assert any(a.startswith(proposing.APART) for a in state["apart"])
    text = store.read("proposals.md")
    assert "Asked in" not in text and fmt.parse(text).entries == []


def test_a_lesson_never_goes_to_peoples_instructions() -> None:
    """Sessions that read only conventions/ (people's instructions to agents): the lesson is
    proposed for the inbox, never for the file agents take their orders from."""
    from datetime import date

    from memory.dream.context import Context
    from memory.dream.lessons import target
    from memory.dream.recurring import Group, read
    from memory.dream.state import State

    eps = [
        read(
            json.dumps(
                {"question": "how do we name branches", "files_read": ["conventions/acme/app.md"]}
            ),
            "2026-11-0" + str(i),
            1,
        )
        for i in (1, 2, 3)
    ]
    tree = {"conventions/acme/app.md": "# app\n\n- branches start with the ticket id\n"}
    ctx = Context(run_id="x", today=date(2026, 11, 30), tree=tree, state=State())
    assert target(ctx, Group("question", "branch name", [e for e in eps if e])) == "inbox.md"
