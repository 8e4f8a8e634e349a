"""Tidy's candidate pairs (memory/dream/same_thing.py) are exactly the pairs its rule names,
found pair by pair here: terms close by at least MEANING (weighted Dice, a short pair with one
thing swapped out), sharing a term on at most COMMON entries, and about one thing (one's
identifiers all among the other's)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from memory.dream.same_thing import COMMON, MEANING, Weights, candidates, closeness, is_ident


@dataclass
class Keys:
    keys: tuple[str, ...]


def by_rule(sets: list[frozenset[str]]) -> list[tuple[int, int, float]]:
    count = Counter(k for s in sets for k in s)
    weight = Weights({k: n for k, n in count.items() if n > 1}, len(sets))
    out = []
    for j, i in combinations(range(len(sets)), 2):
        a, b = sets[j], sets[i]
        close = closeness(set(a), tuple(b), weight, weight.total(a), weight.total(b))
        ids_a, ids_b = {k for k in a if is_ident(k)}, {k for k in b if is_ident(k)}
        if (
            close >= MEANING
            and any(count[k] <= COMMON for k in a & b)
            and not (ids_a - ids_b and ids_b - ids_a)
        ):
            out.append((j, i, close))
    return out


def memory(seed: int, n: int) -> list[frozenset[str]]:
    """Entries of a few plain words (some on more than COMMON entries) and codes from a small
    stock (so entries share them, some on more than COMMON entries too), with copies and
    near-copies, some naming no code and some naming many."""
    rng = random.Random(seed)
    plain = [f"word{c}" for c in "abcdefghij"] + ["often", "always"]
    codes = [f"svc-{k}" for k in range(40)] + ["hot-1", "hot-2"]
    out: list[frozenset[str]] = []
    for _ in range(n):
        if out and rng.random() < 0.15:
            base = set(rng.choice(out))
            if rng.random() < 0.5:
                base.add(rng.choice(plain + codes))
            out.append(frozenset(base))
            continue
        keys = set(rng.sample(plain[:10], rng.randint(1, 4)))
        keys.update(rng.sample(["often", "always"], rng.randint(0, 2)))
        keys.update(rng.sample(codes[:40], rng.choice([0, 1, 1, 2, 2, 3, 6])))
        if rng.random() < 0.3:
            keys.add(rng.choice(["hot-1", "hot-2"]))
        if rng.random() < 0.2:
            keys.add(f"once-{rng.random()}")  # a code on this entry alone
        out.append(frozenset(keys))
    return out


def test_candidates_are_the_pairs_the_rule_names() -> None:
    checked = 0
    for seed in range(6):
        sets = memory(seed, 400)
        count = Counter(k for s in sets for k in s)
        assert max(count.values()) > COMMON  # too common keys are part of what is tested
        found = [Keys(tuple(s)) for s in sets]
        got = candidates(found)
        want = by_rule(sets)
        assert [p[:2] for p in got] == [p[:2] for p in want]
        assert all(abs(g[2] - w[2]) < 1e-9 for g, w in zip(got, want, strict=True))
        assert [frozenset(f.keys) for f in found] == sets  # put in order, the same keys
        checked += len(got)
    assert checked > 100
