"""Characters that render as nothing (zero-width and other format characters): one set, removed
by the secret scanner before matching (memory.secrets.scanner) and by folding before comparing
(memory.format.folding), so every door sees the same text behind them."""

import re

INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
