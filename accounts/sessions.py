"""The session store (``SESSION_ENGINE``): Django's database sessions, with keys only of
the shape Django makes them.

A session cookie's value is looked up as the session key as it is. One holding a NUL
made PostgreSQL refuse the query: any page answered 500, and a socket's handshake failed
with a traceback. A key that is not 8 to 40 ASCII letters and digits (Django makes 32) is
no session at all: the request goes on as an anonymous one, and the cookie is replaced
when a session is next saved.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore

SESSION_KEY_LENGTHS = range(8, 41)


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return (
            key is not None
            and len(key) in SESSION_KEY_LENGTHS
            and key.isascii()
            and key.isalnum()
        )
