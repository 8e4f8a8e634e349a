"""Notes from Slack into several memories: the person's own, the team's, the org's.

"save a note: I prefer…" goes where the router says (memory/scopes.py; with an API key Claude
settles what the rules cannot); "save a note to my memory: …", "… to the team memory: …" and
"… to the org memory: …" name it. When it is unclear the note is not saved: hippo asks, in the
thread, which memory it belongs to, and the person says it again naming one. `me` is always the
Slack user who asked (jobs/memories.py).
"""

from __future__ import annotations

from jobs import memories, memory_scopes
from jobs.runtime import Runtime
from memory.markup import slack
from memory.scopes import ME, ORG, TEAM, Judge, UnclearScope

NAMES = {ME: "your own memory", TEAM: "the team memory", ORG: "the org memory"}
SAY = {ME: "to my memory", TEAM: "to the team memory", ORG: "to the org memory"}


def pick(rt: Runtime, user: str, memory: str, text: str) -> tuple[str, Runtime] | str:
    """The memory the note goes to and its Runtime, or the question to ask when unclear."""
    try:
        return memories.pick(rt, user, given=memory, text=text, judge=judge(rt))
    except UnclearScope as exc:
        return ask_which(exc)


def judge(rt: Runtime) -> Judge | None:
    """Claude's verdict on what the rules find unclear, with an API key; None without one."""
    if rt.llm is None:
        return None
    from integrations.scope_llm import judge_for

    return judge_for(rt.llm, rt.config.small_model)


def ask_which(exc: UnclearScope) -> str:
    options = " or ".join(f"`@hippo save a note {SAY[c]}: …`" for c in exc.choices)
    return (
        f"Not saved yet: which memory should “{slack(exc.text[:200])}” go to, "
        f"{' or '.join(NAMES[c] for c in exc.choices)}? Say it again as {options}."
    )


def saved_in(scope: str, path: str, text: str) -> str:
    """The reply for a note saved outside the team memory (the console shows the team's)."""
    return f"Saved to {NAMES[scope]}, `{slack(path)}`: “{slack(text[:200])}”"


def own_recall(rt: Runtime, user: str, query: str, *, private: bool) -> str:
    """What the asker's own memory holds on `query`, for a recall's answer, labelled `[me]`:
    the lines where only they see the answer (a DM with hippo, a `/hippo` command's reply),
    else only how many there are and where to see them."""
    if not query.strip() or ME not in memory_scopes.open_scopes(rt.config, user):
        return ""
    own = memories.runtime_for(rt, ME, user).store
    own.sync()
    hits = [h for h in own.search(query, limit=10) if h.entry][:5]
    if not hits:
        return ""
    if not private:
        return (
            f"\n_{len(hits)} more in your own memory: ask me in a DM or with `/hippo recall` "
            "to see them._"
        )
    lines = [f"• [me] {slack(h.text[:200])} — `{slack(h.path)}`" for h in hits]
    return "\nFrom your own memory:\n" + "\n".join(lines)
