"""The rule-based router: whose fact is it, the person's own, the team's, or unclear?"""

from __future__ import annotations

import pytest

from memory import scopes
from memory.scopes import ME, ORG, TEAM, UnclearScope, UnknownMemory

OPEN = (ME, TEAM, ORG)


@pytest.mark.parametrize(
    "text",
    [
        "I prefer tabs over spaces",
        "I usually start the day with the review queue",
        "my editor is helix",
        "remind me to re-check the rate limit after the migration",
        "I'm on leave every other Friday",
        "note to self: the deploy dashboard is bookmarked",
    ],
)
def test_a_persons_own_habits_go_to_their_memory(text: str) -> None:
    assert scopes.classify(text) == ME
    assert scopes.choose(text, OPEN) == ME


@pytest.mark.parametrize(
    "text",
    [
        "the deploy drains the queue first",
        "we always drain the queue before a deploy",
        "checkout-api returns 504s after deploys",
        "acme/shop runs its tests on every push",
        "the vendor sandbox answers slowly under load",
    ],
)
def test_team_facts_go_to_the_teams(text: str) -> None:
    assert scopes.choose(text, OPEN) == TEAM


@pytest.mark.parametrize(
    "text", ["I prefer we deploy on Fridays", "my deploy script skips the canary"]
)
def test_words_pointing_both_ways_are_a_question_naming_the_choices(text: str) -> None:
    with pytest.raises(UnclearScope) as caught:
        scopes.choose(text, OPEN)
    assert caught.value.choices == (ME, TEAM)  # the org memory is only ever chosen by name
    assert "me or team" in str(caught.value)


def test_a_judge_settles_what_the_rules_cannot_and_only_that() -> None:
    asked: list[str] = []

    def judge(text: str) -> str | None:
        asked.append(text)
        return ME

    assert scopes.choose("I prefer we deploy on Fridays", OPEN, judge=judge) == ME
    assert scopes.choose("the deploy drains the queue", OPEN, judge=judge) == TEAM
    assert asked == ["I prefer we deploy on Fridays"]
    with pytest.raises(UnclearScope):  # a judge without an answer still asks
        scopes.choose("I prefer we deploy on Fridays", OPEN, judge=lambda _t: "maybe")


def test_a_named_memory_wins_and_an_unknown_one_names_the_choices() -> None:
    assert scopes.choose("I prefer tabs", OPEN, given="team") == TEAM
    assert scopes.choose("the deploy", OPEN, given="my") == ME
    assert scopes.choose("the deploy", OPEN, given="[org]") == ORG
    with pytest.raises(UnknownMemory, match="choose one of team"):
        scopes.choose("x", (TEAM,), given="me")
    with pytest.raises(UnknownMemory, match="not a memory's name"):
        scopes.choose("x", OPEN, given="bob")


def test_without_a_personal_memory_everything_goes_to_the_team() -> None:
    assert scopes.choose("I prefer tabs", (TEAM, ORG)) == TEAM
    assert scopes.choose("I prefer we deploy on Fridays", (TEAM,)) == TEAM
    assert scopes.label(ME) == "[me]"


@pytest.mark.parametrize(
    "text",
    [
        "I'd rather see type hints on every function",
        "I format SQL with keywords in upper case",
        "Personally I avoid one-letter variable names",
        "I've never used Terraform",
        "I write commit messages in the imperative",
        "Don't expect replies from me at weekends",
    ],
)
def test_first_person_habits_go_to_their_memory(text: str) -> None:
    assert scopes.classify(text) == ME


def test_a_past_event_told_in_the_first_person_is_not_a_habit() -> None:
    assert scopes.classify("I fixed the cache key for the checkout service") == TEAM


@pytest.mark.parametrize(
    "text", ["Show me the command before you run it", "tell me which deploy broke"]
)
def test_a_bare_me_is_not_a_statement_about_oneself_so_the_door_asks(text: str) -> None:
    assert scopes.classify(text) is None  # never the team's by default, nor the person's
    with pytest.raises(UnclearScope) as caught:
        scopes.choose(text, OPEN)
    assert "me or team" in str(caught.value)


@pytest.mark.parametrize(
    "text", ["I think we should squash-merge everything", "Personally I'd like our standups short"]
)
def test_a_stance_on_the_teams_practice_is_still_a_question(text: str) -> None:
    assert scopes.classify(text) is None
