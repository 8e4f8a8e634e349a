"""The GitHub app's front door: the webhook route (`register`, bot/github/webhook.py) and the
handlers it routes each delivery to by (event, action) (bot/github/events.py)."""

from bot.github.webhook import register

__all__ = ["register"]
