"""The web console at /console: people browse, edit, review history and undo dreaming.

bot/console/app.py registers the blueprint; the views are split by feature: auth (sign-in, CSRF),
files (tree, file, edits), history (log, diff, revert), dreams (dream runs as cards), extras
(channel preferences, outbox), repos (repository preferences, the activity page). This file
imports nothing, so the views never import the package that imports them.
"""
