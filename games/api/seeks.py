"""lichess's open challenge (``POST /api/challenge/open``, Challenges tag) and
correspondence seek (``POST /api/board/seek``, Board tag). Both make a seek in the
site's lobby (:mod:`games.services.seeks`): the player who opens its address, or takes
it in the lobby, plays the token's owner, whose ``/api/stream/event`` then gets
``gameStart``. Correspondence only: a clock (``clock.limit``, ``time``…) is a 400."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from accounts.tokens import TokenUse
from games import services
from games.api import gate
from games.api.gate import REAL_TIME_REFUSED, BadRequest, days_of, endpoint
from games.models.seeks import NAME_MAX_LENGTH
from games.state import lichess, lichess_reads

RATING_RANGE = re.compile(r"([0-9]{1,4})-([0-9]{1,4})")  # ASCII digits only


def _standard_only(fields: Mapping[str, str]) -> None:
    if fields.get("variant", "standard") not in ("standard", ""):
        raise BadRequest(_("Only standard chess is played here."))
    if fields.get("fen"):
        raise BadRequest(_("Games from a position cannot be offered here."))


@endpoint("challenge:write", "bot:play", "board:play", methods=("POST",))
def open_challenge(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``POST /api/challenge/open``: ``days`` (or none: no time limit), ``rated``,
    ``name``. Answers the challenge with ``urlWhite``/``urlBlack``."""
    fields = dict(gate.fields(request))
    if fields.get("clock.limit") or fields.get("clock.increment"):
        raise BadRequest(str(REAL_TIME_REFUSED))
    _standard_only(fields)
    if fields.get("users"):
        raise BadRequest(_("users is not served here: anyone may join an open challenge."))
    name = fields.get("name") or ""
    if len(name) > NAME_MAX_LENGTH:
        raise BadRequest(_("name must be at most 100 characters."))
    made = services.create_seek(
        maker=token.player,
        days_per_move=days_of(fields.get("days")),
        rated=gate.flag(fields.get("rated"), name="rated") or False,
        name=name.strip(),
    )
    return JsonResponse(lichess.open_challenge(made, lichess_reads.people([made.maker])))


def _rating_range(text: str) -> tuple[int | None, int | None]:
    """lichess's ``ratingRange``, ``1500-1800``; empty for any rating."""
    text = text.strip()
    if not text:
        return None, None
    matched = RATING_RANGE.fullmatch(text)
    if matched is None:
        raise BadRequest(_("ratingRange must be two ratings joined by a dash: 1500-1800."))
    return int(matched[1]), int(matched[2])


@endpoint("board:play", methods=("POST",))
def board_seek(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``POST /api/board/seek`` with ``days``: a correspondence seek, answered at once
    with its id (it waits in the lobby until someone joins). ``color``, ``rated`` and
    ``ratingRange`` as lichess's; ``time``/``increment`` (a real-time seek) are a 400."""
    fields = dict(gate.fields(request))
    if fields.get("time") or fields.get("increment"):
        raise BadRequest(str(REAL_TIME_REFUSED))
    _standard_only(fields)
    if not fields.get("days"):
        raise BadRequest(_("days is required: 1, 2, 3, 5, 7, 10 or 14 per move."))
    colour = fields.get("color") or "random"
    if colour not in ("white", "black", "random"):
        raise BadRequest(_("color must be white, black or random."))
    low, high = _rating_range(fields.get("ratingRange") or "")
    made = services.create_seek(
        maker=token.player,
        days_per_move=days_of(fields.get("days")),
        colour=colour,
        rated=gate.flag(fields.get("rated"), name="rated") or False,
        rating_min=low,
        rating_max=high,
    )
    return JsonResponse({"id": made.short_id})
