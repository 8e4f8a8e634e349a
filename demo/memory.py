"""Demo step: the memory core. Init, save notes, a refused note, forget, search, lint, log."""

from __future__ import annotations

from datetime import date

from demo.context import Demo
from memory import notes, writes
from memory.errors import MemoryStoreError
from memory.format.lint import lint
from memory.git import Author

SAMPLE_TOPICS = {
    "services/checkout-api.md": "# checkout-api: the service behind /checkout\n\n"
    "- Owned by the payments team; on-call rota in PagerDuty 'payments' [added: 2026-10-02]\n",
    "runbooks/nightly-batch.md": "# nightly-batch: the 02:00 reconciliation job\n\n",
}
SAMPLE_NOTES = [
    (
        "checkout-api 504s after deploys come from the vendor sandbox under parallel load",
        "U024BE7LH",
    ),
    ("the nightly batch alert is expected, nobody acts on it", "U0G9QF9C6"),
    ("staging database is rebuilt every Sunday at 06:00 UTC", "U024BE7LH"),
    ("deploys freeze on Fridays after 15:00", "U0G9QF9C6"),
    # the same fact in other words, from someone else: tonight's dream merges the two
    ("The staging database is rebuilt every Sunday, at 06:00 UTC.", "U0G9QF9C6"),
]


PERSON = Author("Ada (demo)", "ada@example.com")


def run(ctx: Demo) -> None:
    today = date.today().isoformat()
    _create(ctx)
    _save_notes(ctx, today)
    _forget(ctx, today)
    _read(ctx)


def _create(ctx: Demo) -> None:
    store = ctx.rt.store
    ctx.heading("memory: create the repository (local bare remote)")
    head = store.init()
    ctx.say(f"remote {store.remote} at {head[:8]}; files: {', '.join(store.files())}")
    store.write(
        [writes.WriteFile(p, text) for p, text in SAMPLE_TOPICS.items()],
        author=PERSON,
        message="topics: checkout-api and nightly-batch",
        key="demo:topics",
    )


def _save_notes(ctx: Demo, today: str) -> None:
    store = ctx.rt.store
    ctx.heading("memory: save notes (each its own commit, routed to the topic it names)")
    for i, (text, user) in enumerate(SAMPLE_NOTES):
        saved = notes.save_note(
            store,
            text,
            today=today,
            author=Author(user, f"{user}@slack.hippo.invalid"),
            source=f"https://demo.slack.com/archives/C0DEMO/p17000000{i:02d}",
            by=user,
            key=f"demo:note:{i}",
        )
        ctx.say(f"saved → {saved.path}: {saved.text} ({saved.result.commit[:8]})")
    again = notes.save_note(
        store, SAMPLE_NOTES[0][0], today=today, author=PERSON, key="demo:note:0"
    )
    ctx.say(f"redelivered note with the same key: created={again.result.created}")

    ctx.heading("memory: bad input is refused and nothing is committed")
    for bad in ("", "the deploy token is ghp_" + "x" * 36):
        try:
            notes.save_note(store, bad, today=today, author=PERSON)
        except MemoryStoreError as exc:
            ctx.say(f"{bad[:24]!r}… → {exc}")


def _forget(ctx: Demo, today: str) -> None:
    store = ctx.rt.store
    ctx.heading("memory: forget (removed and tombstoned)")
    out = notes.forget(
        store,
        "the nightly batch alert is expected",
        today=today,
        author=PERSON,
        by="U0G9QF9C6",
        reason="the batch alert pages now",
    )
    ctx.say(f"{out.status}: {[m.text for m in out.matches]}")
    try:
        notes.save_note(
            store,
            "The nightly batch alert is EXPECTED, nobody acts on it!",
            today=today,
            author=PERSON,
        )
    except MemoryStoreError as exc:
        ctx.say(f"re-adding it is refused: {exc}")


def _read(ctx: Demo) -> None:
    store = ctx.rt.store
    ctx.heading("memory: search")
    # Every word counts: a question in other words (deployed, 504, production) still finds it.
    questions = ("checkout 504", "why does checkout 504 after we deployed to production?")
    for query in (*questions, '"staging database"', "deploys", "+vendor sandbxo"):
        hits = store.search(query, limit=3)
        ctx.say(f"{query!r}: " + ("; ".join(f"{h.path}:{h.line} {h.text}" for h in hits) or "—"))

    ctx.heading("memory: lint")
    problems = lint(store.tree())
    ctx.say(
        "clean" if not problems else "\n".join(f"{p.path}:{p.line} {p.message}" for p in problems)
    )

    ctx.heading("memory: log")
    for c in store.log(limit=12):
        ctx.say(f"{c.short} {c.author:<22} {c.summary}")
