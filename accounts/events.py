"""The accounts' real-time groups: ``account-<id>`` (every socket of an account) and
``session-<digest>`` (every socket of one login session), closed after a commit that
revokes them. The sending is the core's (:mod:`ajedrez.core.events`).
"""

from __future__ import annotations

import hashlib

from ajedrez.core.events import publish_on_commit


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


def session_group(session_key: str) -> str:
    # A digest, not the key: group names may be stored (Redis) and listed, and the key
    # is what logs a browser in.
    return "session-" + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def _close_sockets_on_commit(group: str) -> None:
    publish_on_commit([group], lambda: {"type": "account.closed"})


def publish_account_closed(user_id: int) -> None:
    """After commit, close every open socket of the account (its access was revoked)."""
    _close_sockets_on_commit(account_group(user_id))


def publish_session_ended(session_key: str) -> None:
    """After commit, close the open sockets of one login session (it logged out)."""
    _close_sockets_on_commit(session_group(session_key))
