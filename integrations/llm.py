"""Claude through the anthropic SDK: one client factory and a one-shot text completion.

Callers pass the client in; with no ANTHROPIC_API_KEY the Runtime gives None and every feature
falls back to its deterministic path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anthropic

from integrations import metrics

TOKEN_KINDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @classmethod
    def of(cls, usage: object) -> Usage:
        def n(name: str) -> int:
            return int(getattr(usage, name, 0) or 0)

        return cls(
            n("input_tokens"),
            n("output_tokens"),
            n("cache_creation_input_tokens"),
            n("cache_read_input_tokens"),
        )


def make_client(
    api_key: str, base_url: str | None = None, *, max_retries: int = 3, timeout: float = 60.0
) -> anthropic.Anthropic:
    """The SDK client; it retries 408/409/429/5xx (529 included) with backoff itself."""
    return anthropic.Anthropic(
        api_key=api_key,
        base_url=base_url or None,
        max_retries=max_retries,
        timeout=timeout,
        # Every Messages answer, whoever asked (dream, agent, judge), counts its tokens here.
        http_client=anthropic.DefaultHttpxClient(event_hooks={"response": [count_tokens]}),
    )


def count_tokens(response: Any) -> None:
    """The SDK's HTTP client's response hook: add a Messages answer's usage to the token
    counters (streams and errors carry none worth reading here)."""
    if response.status_code != 200 or not response.request.url.path.endswith("/messages"):
        return
    if "json" not in response.headers.get("content-type", ""):
        return
    response.read()
    try:
        usage = response.json().get("usage") or {}
    except ValueError:
        return
    for kind in TOKEN_KINDS:
        n = usage.get(kind)
        if isinstance(n, int) and n > 0:
            metrics.LLM_TOKENS.labels(kind).inc(n)


def complete(
    client: anthropic.Anthropic, *, model: str, system: str, prompt: str, max_tokens: int = 400
) -> tuple[str, Usage]:
    """One user turn, text out. Raises anthropic.APIError subclasses when retries run out."""
    msg = client.messages.create(
        model=model,
        max_tokens=max_tokens,
        system=system,
        messages=[{"role": "user", "content": prompt}],
    )
    text = "".join(getattr(b, "text", "") for b in msg.content if getattr(b, "type", "") == "text")
    return text.strip(), Usage.of(msg.usage)
