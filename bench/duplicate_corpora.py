"""Public paraphrase and entailment corpora, read from files a person passes to
bench/duplicates.py (`--corpus name=PATH`); none is kept in this repository.

Each reader yields (label, a, b), label "same" (one meaning: merging loses nothing) or
"different":

- `mrpc`: the Microsoft Research Paraphrase Corpus (`msr_paraphrase_test.txt`: Quality, #1 ID,
  #2 ID, #1 String, #2 String): Quality 1 is "same". News pairs mined for their overlap.
- `sts`: the STS benchmark (`sts-test.csv`, tab-separated: genre, file, year, id, score,
  sentence 1, sentence 2): score 4 or more ("mostly" or "completely equivalent") is "same",
  below 3 is "different"; from 3 to 4 ("roughly equivalent, some important information
  differs") is left out, neither.
- `sick`: SICK (`SICK.txt`, with its header: sentence_A, sentence_B, entailment_AB,
  entailment_BA): entailment both ways is "same", anything else "different" (one-way
  entailment, neutral, contradiction).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

Row = tuple[str, str, str]  # (label, a, b)


def mrpc(path: Path) -> Iterator[Row]:
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        cells = line.split("\t")
        if len(cells) >= 5 and cells[0] in ("0", "1"):
            yield ("same" if cells[0] == "1" else "different", cells[3], cells[4])


def sts(path: Path) -> Iterator[Row]:
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        try:
            score = float(cells[4])
        except (IndexError, ValueError):
            continue  # the header, or not a pair
        if len(cells) >= 7 and (score >= 4 or score < 3):
            yield ("same" if score >= 4 else "different", cells[5], cells[6])


def sick(path: Path) -> Iterator[Row]:
    lines = path.read_text(encoding="utf-8").splitlines()
    head = {name: i for i, name in enumerate(lines[0].split("\t"))}
    a, b = head["sentence_A"], head["sentence_B"]
    ab, ba = head["entailment_AB"], head["entailment_BA"]
    for line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > max(a, b, ab, ba):
            both = cells[ab] == "A_entails_B" and cells[ba] == "B_entails_A"
            yield ("same" if both else "different", cells[a], cells[b])


READERS: dict[str, Callable[[Path], Iterator[Row]]] = {"mrpc": mrpc, "sts": sts, "sick": sick}
# corpora built or mined to look alike: their different-meaning pairs offered are not held to
# the 15% line (issue 40)
LOOK_ALIKE = frozenset({"mrpc"})


def read(spec: str) -> tuple[str, list[Row]]:
    """`name=PATH` → (name, rows); a clear error for an unknown name or a missing file."""
    name, _, path = spec.partition("=")
    if name not in READERS:
        raise SystemExit(f"--corpus {spec}: the name is one of {', '.join(READERS)}")
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"--corpus {spec}: no such file")
    return name, list(READERS[name](file))
