"""Signed one-click links that stop mail, in every message (RFC 8058 too): they work
without a login, so the token itself says whose mail and which kind, signed with the
site's secret (``django.core.signing``). They do not expire: a link in an old message
must still stop the mail. A token that was altered, forged, cut short, overlong or of
another shape is refused as a whole.
"""

from __future__ import annotations

from django.core import signing

from games.models import NotificationKind

SALT = "ajedrez.mail.stop"
# "Stop all mail" rather than one kind.
ALL = "all"
# Far above any token made here (about 60 characters); anything longer is not read.
MAX_TOKEN_LENGTH = 200


class BadMailLink(Exception):
    """The token was not made by this site, or not in the shape it makes."""


def stop_token(player_id: int, kind: str | None) -> str:
    """The token of the link that stops ``kind`` (``None``: all mail) for ``player_id``."""
    return signing.dumps([player_id, kind or ALL], salt=SALT, compress=False)


def read_stop_token(token: str) -> tuple[int, str | None]:
    """``(player id, kind or None for all mail)`` from a token made by :func:`stop_token`.

    Raises :class:`BadMailLink` for anything else.
    """
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise BadMailLink
    try:
        value = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, UnicodeError) as exc:
        raise BadMailLink from exc
    if not (isinstance(value, list) and len(value) == 2):
        raise BadMailLink
    player_id, kind = value
    if isinstance(player_id, bool) or not isinstance(player_id, int) or player_id <= 0:
        raise BadMailLink
    if kind == ALL:
        return player_id, None
    if kind not in NotificationKind.values:
        raise BadMailLink
    return player_id, kind
