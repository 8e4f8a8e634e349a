"""Words and abbreviations that name one thing, each group folded to its first word
(memory/facts/wording.py): "purchase" → "buy", "k8s" → "kubernetes".

No maintained lexical resource ships on the package index with its data (WordNet's readers,
`wn` and nltk, download their data at run time; the one wheel that bundled it was last released
in 2018), so the groups are kept here: the everyday synonyms public paraphrase corpora lean on
(people, actions, things), and the abbreviations teams write. Only groups whose words are
interchangeable in a statement of fact: near-synonyms that say more or less ("rose"/"soared",
"often"/"always") stay apart, and so do words of one kind ("guitar"/"flute").
"""

from __future__ import annotations

_GROUPS = """
child kid kids children youngster
woman lady ladies
man guy guys gentleman
photo photograph picture pic
bicycle bike
television tv
telephone phone cellphone
buy purchase
begin start
finish end complete
repair fix
big large huge
small little tiny
fast quick quickly rapidly
speak talk
cut slice chop
problem issue
error fault
shut close
choose pick select
help assist
show display
remove delete
create make
need require
use utilize
try attempt
answer reply respond
ask request
seem appear
enough sufficient
maybe perhaps possibly
often frequently
sometimes occasionally
kubernetes k8s kube
database db dbs
repository repo repos
configuration config configs settings
production prod
development dev
environment env
authentication auth authn
authorization authz
documentation docs doc
information info
application app apps
message msg
performance perf
approximately approx
request req
response resp
dependency dep deps
directory dir
administrator admin
"""


def groups() -> list[list[str]]:
    """The groups, each a list whose first word is the one the others fold to."""
    return [line.split() for line in _GROUPS.strip().splitlines()]
