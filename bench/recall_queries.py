"""The questions people ask about bench/recall_corpus.py's notes, for bench/recall.py.

A query is built from the note's slot values, never from its sentence: 2-4 of its rarest values,
in any order, in a question frame, and then changed the way people change them: an extra word or
two the note does not hold, another form of a word (deployed → deployment), a partial word (kube,
config), or a typo.
"""

from __future__ import annotations

import random

from bench.recall_corpus import ACTIONS, SYMPTOMS, Note

# Words people add that a given note may not hold (checked per note).
EXTRA = [
    "issue",
    "problem",
    "error",
    "prod",
    "production",
    "again",
    "broken",
    "fix",
    "failing",
    "slow",
    "outage",
    "team",
    "today",
    "latest",
    "docs",
    "setup",
    "owner",
    "alert",
    "incident",
    "customers",
    "users",
    "weekend",
    "morning",
    "release",
    "cluster",
    "region",
    "latency",
    "memory",
    "cpu",
    "dashboard",
    "logs",
]

# Slots whose values name a note (the rest are too common to ask with).
DISTINCT = ["codename", "customer", "flag", "table", "job", "ticket", "svc", "tech", "person"]
FRAMES = ["{q}", "why {q}", "how do we handle {q}", "what about {q}", "{q}?", "who knows {q}"]
KINDS_OF_QUERY = ["distinctive", "extra words", "word forms", "partial words", "typos"]


def _rarest(note: Note, df: dict[str, int], rng: random.Random) -> list[str]:
    """2-4 of the note's slot values, rarer first, plus its symptom or action word."""
    values = [note.slots[k] for k in DISTINCT if k in note.slots]
    values.sort(key=lambda v: df.get(v.lower(), 0))
    picked = values[: rng.randint(1, 3)]
    for k in ("symptom", "action"):
        if k in note.slots:
            picked.append(note.slots[k])
            break
    rng.shuffle(picked)
    return picked


def query(note: Note, kind: str, df: dict[str, int], rng: random.Random) -> str:
    words = _rarest(note, df, rng)
    if kind == "word forms":
        forms = dict(SYMPTOMS + ACTIONS)
        words = [rng.choice(forms[w]) if w in forms else w for w in words]
    elif kind == "partial words":
        long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
        if long:
            i = rng.choice(long)
            words[i] = words[i][: max(4, len(words[i]) * 3 // 5)]
        else:  # a compound name typed in part: its first piece (never a bare `ops`)
            heads = [(i, w.replace("_", "-").split("-")[0]) for i, w in enumerate(words)]
            heads = [(i, h) for i, h in heads if len(h) >= 4 and h.isalpha() and h != words[i]]
            if heads:
                i, head = heads[0]
                words[i] = head
    elif kind == "typos":
        i = max(range(len(words)), key=lambda j: (len(words[j]), j))
        words[i] = typo(words[i], rng)
    if kind == "distinctive":  # the words alone, as a precise lookup types them
        return " ".join(words)
    extra = [w for w in EXTRA if w not in note.words]
    for w in rng.sample(extra, rng.randint(1, 2)):
        words.insert(rng.randint(0, len(words)), w)
    return rng.choice(FRAMES).format(q=" ".join(words))


def typo(word: str, rng: random.Random) -> str:
    """One slip: two letters swapped, one dropped, one doubled or one replaced."""
    spots = [i for i in range(1, len(word) - 1) if word[i : i + 2].isalpha()]
    if len(word) < 4 or not spots:
        return word
    i = rng.choice(spots)
    how = rng.randrange(4)
    if how == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == 1:
        return word[:i] + word[i + 1 :]
    if how == 2:
        return word[:i] + word[i] + word[i:]
    return word[:i] + rng.choice("aeioustrn") + word[i + 1 :]
