"""Duplicates in other words merge, opposites never do, merges leave a trace in forgotten.md
and count against the nightly cap; a forgotten fact said again in more words is refused."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from memory import format as fmt
from memory.dream import digest
from memory.dream.merge import merge_pair
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.errors import TombstoneConflict
from memory.git import Author, Store
from memory.notes import forget
from memory.writes import AddEntry, WriteFile

ALICE = Author("alice", "alice@example.com")
NIGHT = datetime(2026, 11, 30, 3, 0)


def seed(store: Store, files: dict[str, str]) -> None:
    store.write([WriteFile(p, t) for p, t in files.items()], author=ALICE, message="seed")


def texts(store: Store, path: str) -> list[str]:
    return [e.text for e in fmt.parse(store.read_or_none(path) or "").entries]


def test_one_statement_in_other_spellings_merges_and_is_recorded(store: Store) -> None:
    """Three spellings of one statement (case, "on call"/"on-call", "hand over"/"hands over",
    "10am"/"10:00") become one entry with every source; the two merged away are in
    forgotten.md as `merged into <path>` with their own source."""
    seed(
        store,
        {
            "teams/oncall.md": "# On-call\n\n"
            "- on-call hands over every Monday at 10:00 [source: https://a; added: 2026-10-01]\n",
            "teams/ops.md": "# Ops\n\n"
            "- The on call hands over every Monday at 10am. [source: https://b; added: 2026-11-01]\n"
            "- the on-call hand over every Monday at 10:00 [source: https://c; added: 2026-11-02]\n",
            "teams/x.md": "# X\n\n- x\n",
        },
    )
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert tidy.subject.startswith("dream(tidy): 2 duplicates merged")
    everything = texts(store, "teams/oncall.md") + texts(store, "teams/ops.md")
    assert len(everything) == 1
    kept = fmt.parse(store.read("teams/oncall.md") + store.read("teams/ops.md")).entries[0]
    assert sorted(kept.get_all("source")) == ["https://a", "https://b", "https://c"]
    stones = fmt.parse(store.read("forgotten.md")).entries
    assert len(stones) == 2
    assert all((s.get("reason") or "").startswith("merged into teams/") for s in stones)
    assert {s.get("source") for s in stones} <= {"https://a", "https://b", "https://c"}


def test_opposites_with_the_same_words_are_both_kept(store: Store) -> None:
    """'restart the cache before the API' and 'restart the API before the cache' share every
    word; order words keep them apart. So do negation and differing numbers."""
    entries = [
        "restart the cache before the API",
        "restart the API before the cache",
        "payments retries 5 times on timeouts",
        "payments retries 3 times on timeouts",
        "staging is reset every Sunday night",
        "staging is no longer reset every Sunday night",
    ]
    seed(store, {"runbooks/api.md": "# API\n\n" + "".join(f"- {e}\n" for e in entries)})
    dream(store, now=NIGHT, verifiers=Verifiers())
    assert texts(store, "runbooks/api.md") == entries
    assert store.read_or_none("forgotten.md") is None


def test_merges_count_against_the_nightly_cap(store: Store) -> None:
    """With 3 topic files the cap is 3 removals: of 5 duplicate pairs, 3 merge tonight and
    the rest wait, said in the commit message."""
    lines = "".join(
        f"- service {n} alerts page the team at night [added: 2026-10-0{i}]\n"
        f"- Service {n} alerts page the team at night. [added: 2026-11-0{i}]\n"
        for i, n in enumerate(("alpha", "bravo", "charlie", "delta", "echo"), start=1)
    )
    seed(store, {"teams/a.md": "# A\n\n" + lines, "teams/b.md": "# B\n", "teams/c.md": "# C\n"})
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert tidy.subject.startswith("dream(tidy): 3 duplicates merged")
    assert sum(1 for ln in tidy.body if ln.startswith("- merge waits for the cap")) == 2
    assert len(texts(store, "teams/a.md")) == 7


def test_a_forgotten_fact_in_more_words_is_refused_unless_forced(store: Store) -> None:
    """After forgetting 'the disk alert on build-runner-3 can be ignored', a note holding all
    its words and more is refused citing the tombstone; forced, it is saved."""
    seed(
        store, {"ops/alerts.md": "# Alerts\n\n- the disk alert on build-runner-3 can be ignored\n"}
    )
    forget(
        store,
        "disk alert build-runner-3",
        by="alice",
        reason="not true",
        author=ALICE,
        key="k1",
        today="2026-11-30",
    )
    again = "nobody acts on the disk alert on build-runner-3 since it can be ignored"
    with pytest.raises(TombstoneConflict) as caught:
        store.write([AddEntry("ops/alerts.md", again)], author=ALICE, message="again")
    assert "the disk alert on build-runner-3 can be ignored" in str(caught.value)
    negated = "the disk alert on build-runner-3 can no longer be ignored"
    store.write([AddEntry("ops/alerts.md", negated)], author=ALICE, message="the opposite")
    store.write([AddEntry("ops/alerts.md", again)], author=ALICE, message="forced", force=True)
    assert texts(store, "ops/alerts.md") == [negated, again]


def test_a_merged_away_wording_does_not_block_the_fact(store: Store) -> None:
    """A `merged into` record is not a tombstone: the same wording may be saved again."""
    seed(
        store,
        {
            "teams/a.md": "# A\n\n- deploys are frozen during Black Friday week [added: 2026-10-01]\n"
            "- Deploys are frozen during the Black Friday week [added: 2026-11-01]\n",
            "teams/b.md": "# B\n",
            "teams/c.md": "# C\n",
        },
    )
    dream(store, now=NIGHT, verifiers=Verifiers())
    assert "merged into teams/a.md" in store.read("forgotten.md")
    again = "Deploys are frozen during the Black Friday week"
    store.write([AddEntry("teams/b.md", again)], author=ALICE, message="m")
    assert texts(store, "teams/b.md") == [again]


def test_a_night_with_hundreds_of_merges_is_still_written(store: Store) -> None:
    """Hundreds of duplicates across files make a commit message too long to list every merge:
    the tidy step is written anyway, its message within the limit and saying how many lines it
    left to the diff (before, the whole step was refused at 1,000 files)."""
    files = {
        f"teams/t{i}.md": f"# T{i}\n\n"
        f"- service {i} pages the on-call team of room {i} at night [source: https://a/{i}; "
        "added: 2026-10-01]\n"
        f"- Service {i} pages the on-call team of room {i} at night. [source: https://b/{i}; "
        "added: 2026-11-01]\n"
        for i in range(300)
    }
    seed(store, files)
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert tidy.commit is not None, tidy.message
    assert "duplicates merged" in tidy.subject
    assert len(tidy.message) <= 8_000
    assert tidy.message.splitlines()[-1].endswith("more lines: the commit's diff has them")
    assert not report.failed


# Pairs from public corpora that the former rule merged (issue 26): one file each, no LLM key.
NEVER_ONE = [
    ("CVS was acquired in 1997 by Revco.", "Revco was acquired in 1997 by CVS."),
    ("There is no man driving a car", "A man is driving a car"),
    ("A person is kicking a monkey", "A monkey is kicking a person"),
    (
        "Saudi Arabia gets a seat at the UN Security Council",
        "Saudi Arabia rejects seat on UN Security Council",
    ),
    ("A man is getting off the car", "A man is getting into a car"),
    (
        "traffic moves from us-east-1 to eu-west-1 at midnight",
        "traffic moves from eu-west-1 to us-east-1 at midnight",
    ),
    (
        "checkout-api is faster than billing on cold starts",
        "billing is faster than checkout-api on cold starts",
    ),
    ("nobody from payments owns the runbook", "somebody from payments owns the runbook"),
    ("the exporter sometimes drops webhooks", "the exporter always drops webhooks"),
]


@pytest.mark.parametrize(("a", "b"), NEVER_ONE)
def test_different_statements_with_the_same_words_never_merge(store: Store, a: str, b: str) -> None:
    """Role swaps (by, from … to, than, subject and object), one-sided negations over the real
    lexicon, antonyms and hedges: both entries stay and nothing goes to forgotten.md."""
    seed(store, {"notes/pairs.md": f"# Pairs\n\n- {a}\n- {b}\n"})
    dream(store, now=NIGHT, verifiers=Verifiers())
    assert texts(store, "notes/pairs.md") == [a, b]
    assert store.read_or_none("forgotten.md") is None


def test_numbers_as_words_and_digits_and_a_passive_merge(store: Store) -> None:
    """ "2" is "two", and "X was acquired by Y in 1997" is "Y acquired X in 1997": provably one
    statement each, merged without an LLM, the keeper holding both sources."""
    seed(
        store,
        {
            "news/a.md": "# A\n\n- 2 French journalists killed in Mali [source: https://a]\n"
            "- Revco acquired CVS in 1997 [source: https://c]\n",
            "news/b.md": "# B\n\n- Two French journalists killed in Mali [source: https://b]\n"
            "- CVS was acquired by Revco in 1997 [source: https://d]\n",
            "news/c.md": "# C\n",
        },
    )
    dream(store, now=NIGHT, verifiers=Verifiers())
    kept = fmt.parse(store.read("news/a.md") + store.read("news/b.md")).entries
    assert len(kept) == 2
    assert sorted(s for e in kept for s in e.get_all("source")) == [
        "https://a",
        "https://b",
        "https://c",
        "https://d",
    ]


def test_a_close_pair_is_a_possible_duplicate_for_a_person(store: Store) -> None:
    """Without an LLM key, "staging is reset every Sunday night" / "staging gets wiped each
    Sunday night" is not provably one statement: nothing is merged, the digest lists the pair
    with a Merge button; the person's merge keeps one entry with both sources, records the
    other in forgotten.md by that person, and a second press finds nothing to do."""
    a, b = "staging is reset every Sunday night", "staging gets wiped each Sunday night"
    seed(
        store,
        {
            "ops/staging.md": f"# Staging\n\n- {a} [source: https://a; added: 2026-10-01]\n"
            f"- {b} [source: https://b; added: 2026-11-01]\n"
        },
    )
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    assert texts(store, "ops/staging.md") == [a, b]
    (pair,) = report.extra["possible_duplicates"]
    (button,) = [
        blk["accessory"]
        for blk in digest.blocks(report, console_url="http://h", workspace="w")
        if blk.get("accessory", {}).get("action_id") == digest.MERGE_ACTION
    ]
    assert button["value"] == "w|" + json.dumps(["ops/staging.md", a, "ops/staging.md", b])
    done = merge_pair(
        store, (pair.path, pair.text, pair.other_path, pair.other_text),
        by="U1", today="2026-11-30", author=ALICE, key="k1",
    )  # fmt: skip
    assert done is not None and done.created
    (kept,) = fmt.parse(store.read("ops/staging.md")).entries
    assert sorted(kept.get_all("source")) == ["https://a", "https://b"]
    (stone,) = fmt.parse(store.read("forgotten.md")).entries
    assert stone.get("by") == "U1" and stone.get("reason") == "merged into ops/staging.md"
    assert stone.get("scope") == "ops/staging.md" and stone.text in (a, b)
    again = merge_pair(
        store, (pair.path, pair.text, pair.other_path, pair.other_text),
        by="U1", today="2026-11-30", author=ALICE, key="k2",
    )  # fmt: skip
    assert again is None


def test_a_full_forgotten_md_holds_back_merges_not_the_night(store: Store) -> None:
    """forgotten.md a few bytes under its 2 MB cap, all of it this month's (too recent to roll
    into the cold store, tests/memory/test_forgotten_rollover.py): tonight's merge would push it
    over, so the merge waits (both entries kept, said in tidy's subject) and the rest of the
    night runs; a night at 100,000 files stopped whole on this (TooLarge out of the dream)."""
    from memory.git.batch import DREAMER
    from memory.writes.validate import MAX_FILE_BYTES

    stones = "# Forgotten\n\n" + "".join(
        f"- old fact {i} [removed: 2026-11-01; by: hippo-dream; reason: stale]\n"
        for i in range(20_000)
    )
    stones += "- pad " + "x" * (MAX_FILE_BYTES - len(stones) - 100) + "\n"
    store.write([WriteFile("forgotten.md", stones)], author=DREAMER, message="seed stones")
    pair = [
        "- The on call hands over every Monday at 10am. [source: https://b; added: 2026-11-01]\n",
        "- the on-call hand over every Monday at 10:00 [source: https://c; added: 2026-11-02]\n",
    ]
    seed(store, {"teams/ops.md": "# Ops\n\n" + "".join(pair), "teams/x.md": "# X\n\n- x\n"})
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert "not written tonight (forgotten.md is at its size cap)" in tidy.subject
    assert len(texts(store, "teams/ops.md")) == 2
    assert store.read("forgotten.md") == stones
    assert [s.step for s in report.steps][-2:] == ["index", "state"]


def test_inflection_tense_and_the_order_of_a_list_merge(store: Store) -> None:
    """One statement up to irregular forms and tense ("ran" / "runs", "children" / "child") and
    the order of a list of single words merges without an LLM; two words joined mid-clause
    ("a beat b and c beat d") are no list and stay apart."""
    seed(
        store,
        {
            "ops/a.md": "# A\n\n- the importer ran out of disk during the backfill\n"
            "- checkout needs redis, postgres and kafka\n"
            "- alerts for billing go to slack and pagerduty\n"
            "- alpha beat bravo and charlie beat delta in the load test\n",
            "ops/b.md": "# B\n\n- the importer runs out of disk during backfills\n"
            "- checkout needs kafka, redis and postgres\n"
            "- alerts for billing go to pagerduty and slack\n"
            "- alpha beat charlie and bravo beat delta in the load test\n",
        },
    )
    dream(store, now=NIGHT, verifiers=Verifiers())
    kept = texts(store, "ops/a.md") + texts(store, "ops/b.md")
    assert len(kept) == 5, kept
    assert "alpha beat bravo and charlie beat delta in the load test" in kept
    assert "alpha beat charlie and bravo beat delta in the load test" in kept


REWORDED = [  # one meaning in other words: MRPC, STS-B and SICK pairs' kinds, our sentences
    ("the staging database is wiped every Sunday night", "staging db gets reset each Sunday night"),
    ("the billing team purchased a datadog license", "billing bought the datadog license"),
    (
        "payouts retries failed webhooks three times",
        "failed webhooks are retried 3 times by payouts",
    ),
    ("a man is slicing a cucumber", "a guy is cutting up the cucumber"),
]


def test_duplicates_in_other_words_are_offered_surest_first(store: Store) -> None:
    """Pairs that say one thing in other words (synonyms, abbreviations, voice, number words)
    reach the person as possible duplicates, the closest first; at most ten are shown."""
    lines = "".join(f"- {a}\n- {b}\n" for a, b in REWORDED)
    seed(store, {"notes/said.md": f"# Said\n\n{lines}"})
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    kept = texts(store, "notes/said.md")
    offered = report.extra["possible_duplicates"]
    pairs = {frozenset((p.text, p.other_text)) for p in offered}
    for a, b in REWORDED:  # offered, or merged (one of them gone)
        assert frozenset((a, b)) in pairs or not (a in kept and b in kept), (a, b)
    assert len(pairs) >= 3
    assert [p.close for p in offered] == sorted((p.close for p in offered), reverse=True)
    many = "".join(
        f"- svc-{i} store is reset every Sunday night\n- svc-{i} store gets wiped each Sunday\n"
        for i in range(12)
    )
    seed(store, {"notes/many.md": f"# Many\n\n{many}"})
    report = dream(store, now=NIGHT + timedelta(days=1), verifiers=Verifiers())
    blocks = digest.blocks(report, console_url="http://h", workspace="w")
    merges = [b for b in blocks if b.get("accessory", {}).get("action_id") == digest.MERGE_ACTION]
    assert len(report.extra["possible_duplicates"]) > 12 and len(merges) == 10
