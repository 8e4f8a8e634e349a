"""The Agent Memory Repo format: parse and render markdown notes, entries, metadata and links.

decisions.py holds the spec's decisions and vocabulary, document.py a parsed note (`parse`) and
one entry, its metadata, its [[links]] and its text reduced for comparing facts; beside them
lines.py (what a line is, as git counts it), lint.py (problems a person should fix), tags.py
(the `tags:` key) and version.py (the format version and migrations), imported by module.
"""

from memory.format.decisions import (
    DECISIONS,
    INDEX_MAX_BYTES,
    INDEX_MAX_LINES,
    KINDS,
    KNOWN_KEYS,
    REMINDERS,
    STATUSES,
)
from memory.format.document import (
    Document,
    Entry,
    Heading,
    append_line,
    escape_text,
    escape_value,
    link_for,
    link_target,
    links_in,
    parse,
    parse_entry,
    render_entry,
    render_meta,
    replace_line,
    split_metadata,
    unescape_text,
    unescape_value,
)
from memory.format.facts import fact_key, normalise, same_fact, words

__all__ = [
    "DECISIONS",
    "INDEX_MAX_BYTES",
    "INDEX_MAX_LINES",
    "KINDS",
    "KNOWN_KEYS",
    "REMINDERS",
    "STATUSES",
    "Document",
    "Entry",
    "Heading",
    "append_line",
    "escape_text",
    "escape_value",
    "fact_key",
    "link_for",
    "link_target",
    "links_in",
    "normalise",
    "parse",
    "parse_entry",
    "render_entry",
    "render_meta",
    "replace_line",
    "same_fact",
    "split_metadata",
    "unescape_text",
    "unescape_value",
    "words",
]
