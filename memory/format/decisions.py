"""The decisions of the Agent Memory Repo format, and its vocabulary: known keys, statuses, kinds,
the MEMORY.md budget.

Every ambiguity listed in SPEC-NOTES.md section 3 is decided once, here; the parser
(document.py) follows them and tests cite their numbers.
"""

from __future__ import annotations

# The decisions, numbered as in SPEC-NOTES.md section 3. Tests cite these numbers.
DECISIONS = {
    1: "Conform to the union of the spec versions: MEMORY.md is required (lint), values are "
    "percent-escaped on render (3a6572ea), links resolve from the root of the repo holding "
    "the file.",
    2: "'[[' ... ']]' spans are links, never metadata; a metadata bracket needs 'key:' inside.",
    3: "All trailing metadata brackets are read, in order, into one list; repeated keys keep every "
    "value (source: a; source: b). Rendering a changed entry writes one bracket.",
    4: "An indented bullet is its own entry with `parent` set to the nearest shallower bullet.",
    5: "Keys are [A-Za-z][A-Za-z0-9_-]*, matched case-insensitively, whitespace stripped; empty "
    "values are kept as ''. Raw ';' inside an old URL value is kept in that value. Values are "
    "percent-escaped, one bijection (escape_value/unescape_value): ';', '[', ']', newline and "
    "carriage return are written %3B, %5B, %5D, %0A, %0D, and '%' is written %25 where it "
    "stands before one of those codes or 25 (any case), so a URL's own %20 stays as it is; "
    "parsing decodes exactly those codes, so every reader gets the value that was written. A "
    "value has no leading or trailing whitespace (both are stripped when written and read).",
    6: "A bracket is metadata only when every ';'-part is 'key: value' (a part after a URL "
    "value may be a raw ';' continuation). '[WIP]', '[sic]' and markdown links stay in the text.",
    7: "Bullets are '-', '*', '+' and '1.'/'1)'; a task box '[ ]'/'[x]' stays in the text; lines "
    "inside ``` or ~~~ fences are never entries.",
    8: "'## Index' is any level-2 heading whose text is 'index' (any case); the first one "
    "counts and runs to the next heading of level 1 or 2. Index bullets may carry text and "
    "metadata; links are allowed anywhere.",
    9: "[[x]] means x.md when x has no extension; '#heading' and '|alias' are dropped from the "
    "target; '..', a leading '/' and empty targets are invalid links (lint reports them).",
    10: "MEMORY.md budget: 200 lines and 25 KB (25,600 bytes), as Claude Code uses.",
    11: "Our extra keys: by, status (tentative|active|revoked), verified, scope, removed, reason, "
    "evidence, kind (pattern|pitfall|win|stack-note|fact), contradicts, refines, tags (16). "
    "Unknown keys "
    "are kept and reported by lint only when malformed.",
    12: "Imperative entries are parsed like any other entry: memory is data, never instructions "
    "(the agent's prompt says so; the parser gives no line special power).",
    13: "Concurrency is not left to git: writes are entry operations re-applied on the newest tip "
    "(memory/git/writer.py); inbox.md and archive/*.jsonl also get merge=union for people's "
    "merges.",
    14: "Dreaming has state, limits and an audit trail: .dream/state.json, at most 25 files "
    "checked and max(3, 15% of topic files) deleted a night, one commit per step.",
    15: "A line ends at '\\n' only, as git, GitHub and grep count lines ('\\r\\n' is one "
    "ending); a form feed, '\\x0b', '\\x1c'-'\\x1e', '\\x85', U+2028, U+2029 or a lone "
    "'\\r' is part of its line (memory/format/lines.py), so line numbers match `git blame`.",
    16: "`tags:` holds tags separated by commas ([tags: deploy, billing]); a tag is letters and "
    "digits joined by single '-', '_', '.', '/' or spaces, at most 40 characters, at most 20 an "
    "entry; repeated `tags:` keys add up. Tags are the same tag when equal but for case, "
    "separators ('-', '_', space) and plural endings (memory/format/tags.py `key`).",
    17: "Reminders (prospective memory) are entries of `reminders.md`, each with a time: "
    "`due: YYYY-MM-DD` (shown from that day until closed), `until: YYYY-MM-DD` (an expiry: "
    "shown until then, closed by the dream once passed) or `when: <trigger>` (no date: pending "
    "until a person, or the dream for `owner/repo#N merged|closed`, closes it). Closing adds "
    "`done: YYYY-MM-DD` and `reason:`; the entry stays as history. `due`, `until` and `done` "
    "are dates; a reminder without a time is `bad-reminder` (memory/reminders/).",
    18: "archive/YYYY-MM-DD.jsonl holds recent episodes only: months ended before last month move "
    "to the ref refs/hippo-cold/archive (months/YYYY-MM.jsonl.gz and index.json), outside what "
    "git clone and hippo fetch, one revertable commit per month; searched on purpose only "
    "(memory/archive/).",
    19: "forgotten.md holds recent tombstones: past 75% of the file cap (1.5 MiB), its records of "
    "months before last month (by their `removed:` date), oldest first, move to the same cold ref "
    "as forgotten/YYYY-MM.md until it is under 50%, one revertable commit per month. A cold "
    "record refuses no write; the dream never writes its fact again (memory/archive/forgotten.py).",
    20: "An entry's text is text: when it ends in a bracket a reader would take for metadata "
    "(every ';'-part 'something: …', or pairs the parser reads), it is written with '\\[' "
    "(a markdown escape), and a text whose trailing bracket already has backslashes before its "
    "'[' gets one more; reading removes one (escape_text/unescape_text, one bijection). Lint "
    "reports no malformed key in an escaped bracket.",
}

KNOWN_KEYS = frozenset(
    {"source", "added", "by", "status", "verified", "scope", "removed", "reason", "evidence"}
    | {"kind", "contradicts", "refines", "tags"}
    | {"due", "until", "when", "done"}  # reminders (17)
)
REMINDERS = "reminders.md"  # decision 17's file
STATUSES = frozenset({"tentative", "active", "revoked"})
# What an agent learned (memory/trust/agent_gate.py): the quality gate's kinds, in the design's
# order.
KINDS = ("pattern", "pitfall", "win", "stack-note", "fact")
INDEX_MAX_LINES = 200
INDEX_MAX_BYTES = 25 * 1024
