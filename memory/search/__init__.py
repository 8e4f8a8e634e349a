"""Search over one commit's tree: ranked over every query word (the default), or every word as
written (`all_words`, for forget and precise lookups). One retrieval core for `hippo search`, MCP,
Slack recall, briefings and the agents' search tool.

    index.py      SearchIndex and Hit: the in-memory index of one tree, both modes
    ranked.py     the ranked mode: query words, stems, prefixes, typos, BM25 and the bonuses
    words.py      the word index (stem -> lines) the ranked mode reads, updated per commit
    all_words.py  the all-words mode's query: terms, phrases and their weights
    folded.py     the folded text of a tree: one lower-cased blob with line and file offsets
"""

from memory.search.all_words import Term, matches_entry, parse_query
from memory.search.folded import fold
from memory.search.index import Hit, SearchIndex

__all__ = ["Hit", "SearchIndex", "Term", "fold", "matches_entry", "parse_query"]
