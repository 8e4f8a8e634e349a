"""Lessons from how people finished the agent's pull requests (pure; GitHub is fetched in
integrations/ and jobs/).

pull_requests.py: how an agent pull request ended (`classify`), its diff and the signature of
the person's edit; planner.py: the lesson that ending teaches, as operations on
`conventions/<owner>/<repo>.md` (`plan`: tentative, then active on a second pull request,
revoked when put back); pitfalls.py: a new pull request repeating a recorded mistake.
thread_rules.py and thread_planner.py: lessons team members state in Slack threads, through the
same gate.
"""

from memory.lessons.pitfalls import Finding, Pitfall
from memory.lessons.planner import LessonPlan, LessonStatus, conventions_path, plan
from memory.lessons.pull_requests import PullFacts, PullOutcome, Signature, classify, signature

__all__ = [
    "Finding",
    "LessonPlan",
    "LessonStatus",
    "Pitfall",
    "PullFacts",
    "PullOutcome",
    "Signature",
    "classify",
    "conventions_path",
    "plan",
    "signature",
]
