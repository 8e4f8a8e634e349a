"""Search over one commit's tree: ranked over every query word (the default), or every word as
written (`all_words`, for forget and precise lookups). One retrieval core for `hippo search`, MCP,
Slack recall, briefings and the agents' search tool.

    index.py      SearchIndex: the in-memory index of one tree, both modes
    fts.py        FtsIndex: the ranked mode's SQLite FTS5 index, on disk (the store's) or in memory
    fts_file.py   that index's tables and version, and opening its file
    ranked.py     the ranked mode: query words, stems, prefixes, typos, BM25 and the bonuses
    bounds.py     how much of a query is read (length, words, typo look-ups), and what was cut
    vocabulary.py what parsing a ranked query looks up in the FTS5 index, kept per commit
    words.py      tokens, stems, context words and typo spellings, as the ranked mode sees them
    priors.py     what a line scores before its words: entries first, removed facts last
    hit.py        Hit: one matching line, as every caller gets it
    tagged.py     `tag:deploy` in a query: only entries carrying the tag
    all_words.py  the all-words mode's query: terms, phrases and their weights
    folded.py     the folded text of a tree: one lower-cased blob with line and file offsets
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.search.all_words import Term, matches_entry, parse_query
    from memory.search.folded import fold
    from memory.search.fts import FtsIndex
    from memory.search.hit import Hit
    from memory.search.index import SearchIndex

# Each name is imported from its module when first used (memory/lazy.py): a search answered
# from the FTS index loads neither the in-memory index nor the all-words parser.
__getattr__, __dir__ = exports(
    __name__,
    {
        "all_words": ("Term", "matches_entry", "parse_query"),
        "folded": ("fold",),
        "fts": ("FtsIndex",),
        "hit": ("Hit",),
        "index": ("SearchIndex",),
    },
)

__all__ = ["FtsIndex", "Hit", "SearchIndex", "Term", "fold", "matches_entry", "parse_query"]
