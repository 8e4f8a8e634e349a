"""Prospective memory: reminders with a due date, an expiry or a trigger (decision 17).

`timing` reads when a reminder is due from its words; `model` reads `reminders.md` into
`Reminder`s (id, time, state on a day); `write` adds and closes them for every door; `show`
says them in briefings, the digest and replies; `dream` is the nightly check that closes what
has passed (an expiry) or happened (a pull request merged or closed).
"""
