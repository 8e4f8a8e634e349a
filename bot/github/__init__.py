"""The GitHub app's front door: the webhook route (`register`), its router by (event, action)
and the handlers registered on it (bot/github/events.py)."""

from bot.github.webhook import register

__all__ = ["register"]
