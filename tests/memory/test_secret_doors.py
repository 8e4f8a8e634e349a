"""Issue 41: every door answers the same for the same text, and a note's text is text.

The evaluation set of bench/secret_study_sets.py (credentials written the way four maintained
scanners write their own tests) and bench/secret_study_text.py (look-alikes: Dependabot messages,
Kubernetes annotations, identifiers, base64, lock files) goes through `hippo note`'s check
(memory.notes.clean_note) and through `hippo lint` on a memory file holding the text as a person
wrote it (memory.format.lint): both refuse, or neither.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.secret_study_sets import cases
from bench.secret_study_text import generated_texts
from memory import format as fmt
from memory import notes
from memory.errors import SecretFound
from memory.format.lint import lint


def _note_refuses(text: str) -> bool:
    try:
        notes.clean_note(text)
    except SecretFound:
        return True
    return False


def _lint_flags(text: str) -> bool:
    tree = {"MEMORY.md": b"# Memory\n\n## Index\n", "inbox.md": f"# Inbox\n\n{text}\n".encode()}
    return any(p.code == "secret" for p in lint(tree))


def _saved_then_linted(text: str) -> bool:
    """What lint says of the file once the note is saved as an entry."""
    line = fmt.render_entry(text, [("added", "2026-12-03")])
    return _lint_flags(line)


@pytest.mark.parametrize("seed", [41, 4141])
def test_note_and_lint_agree_on_every_credential_of_the_evaluation(seed: int) -> None:
    """Before issue 41, 3 of 49 lines were flagged by lint and saved by note."""
    r = random.Random(seed)
    disagree = []
    for case in cases(r, 2):
        refused = _note_refuses(case.text)
        if refused != _lint_flags(case.text):
            disagree.append((case.family, case.syntax, case.text))
    assert disagree == []


def test_note_and_lint_agree_on_the_look_alikes() -> None:
    r = random.Random(7)
    texts = [t for kind in generated_texts(r, 60).values() for t in kind]
    assert [t for t in texts if _note_refuses(t) != _lint_flags(t)] == []
    assert [t for t in texts if _lint_flags(t)] == []  # and none of them is a secret


def test_what_a_note_saves_lint_never_flags() -> None:
    """A saved note's line, with hippo's metadata after it, is clean for lint too."""
    r = random.Random(11)
    texts = [t for kind in generated_texts(r, 40).values() for t in kind]
    texts += [c.text for c in cases(r, 1)]
    for text in texts:
        if not _note_refuses(text):
            assert not _saved_then_linted(notes.clean_note(text)), text


def test_a_docker_auth_config_is_refused_as_a_secret_not_as_metadata() -> None:
    """Issue 41: `DOCKER_AUTH_CONFIG={"auths": …}` was refused as 'metadata key … is
    malformed'; its `auth` is base64 of user:password, a credential."""
    text = (
        'CI needs DOCKER_AUTH_CONFIG={"auths": {"registry.acme.io": {"auth": "dXNlcjpodW50ZXIy"}}}'
    )
    with pytest.raises(SecretFound):
        notes.clean_note(text)


# -- a note's text is text (decision 20) -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the tuple is [a: 1; b: 2]",
        "ends with [source: https://example.com/x]",
        'daemon.json: "insecure-registries" ["10.0.0.5:5000", "registry.local:5000"]',
        "a regex [a-z\\]",
        "escaped already \\[k: v]",
        "[added: yesterday]",
    ],
)
def test_a_bracket_ending_the_text_reads_back_as_text(text: str) -> None:
    """Before decision 20 these read back as metadata (or were refused as malformed keys)."""
    line = fmt.render_entry(text, [("added", "2026-12-03")])
    entry = fmt.parse_entry(line)
    assert entry is not None
    assert (entry.text, entry.meta) == (text, (("added", "2026-12-03"),))
    doc = fmt.parse(f"# Inbox\n\n{line}\n")
    assert [p for p in lint({"inbox.md": doc.text.encode()}) if p.code == "bad-key"] == []


_TEXT = st.lists(
    st.sampled_from([*"ab:;[]\\ %/-\"'{}", "key", "source", "WIP", "x: y", "[[l]]", "%5D"]),
    min_size=1,
    max_size=24,
).map(lambda parts: "".join(parts))
_TAIL = st.sampled_from(
    ["", "]", " [a: b]", "[x: y; z: w]", " [WIP]", "\\[k: v]", "[[l]]", "[s: http://a;b]"]
)


@settings(max_examples=400, deadline=None)
@given(
    _TEXT, _TAIL, st.sampled_from([(), (("added", "2026-12-03"),), (("by", "U1"), ("tags", "a"))])
)
def test_any_text_reads_back_as_itself(
    body: str, tail: str, meta: tuple[tuple[str, str], ...]
) -> None:
    """Rendered as an entry (with or without metadata) and parsed again, a one-line text is
    the same text and the metadata the same metadata."""
    text = " ".join((body + tail).split())
    if not text:
        return
    entry = fmt.parse_entry(fmt.render_entry(text, meta))
    assert entry is not None
    assert (entry.text, entry.meta) == (text, meta)
