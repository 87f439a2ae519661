"""lichess's Games tag: ``GET /game/export/{id}`` (one game) and ``GET
/api/games/user/{username}`` (a player's games, streamed), as PGN or, when the client
accepts it, lichess's ``GameJson`` (ndjson for many). Any player may read any game
(correspondence games are public, as on lichess); here a token is needed, as for every
read of the site. The shapes are :mod:`games.state.lichess_exports`'s."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from accounts.throttling import count_request
from accounts.tokens import TokenUse
from games import pgn_export, services
from games.api import gate
from games.api.gate import BadRequest, endpoint
from games.api.ndjson import NDJSON, in_pool, ndjson
from games.models import Game
from games.state import lichess, lichess_exports, lichess_reads
from games.state.lichess_exports import ExportOptions, UserGamesFilter

PGN = "application/x-chess-pgn; charset=utf-8"
# lichess's ``max`` is a 32-bit integer; beyond, the request is refused, not clamped.
MAX_GAMES = 2**31 - 1
# The longest millisecond timestamp read (year 2286): beyond, the date means nothing.
MAX_TIMESTAMP_DIGITS = 13


def _options(fields: Mapping[str, str], *, single: bool) -> ExportOptions:
    """The export flags; their defaults are lichess's, which differ between one game's
    export (the analysis and the opening by default) and a player's games (neither)."""

    def flag(name: str, default: bool) -> bool:
        found = gate.flag(fields.get(name), name=name)
        return default if found is None else found

    for ignored in ("clocks", "literate", "division", "withBookmarked", "analysed"):
        flag(ignored, False)  # read, so that a value that is no boolean is refused
    return ExportOptions(
        moves=flag("moves", True),
        pgn_in_json=flag("pgnInJson", False),
        tags=flag("tags", True),
        evals=flag("evals", single),
        accuracy=flag("accuracy", False),
        opening=flag("opening", single),
        last_fen=flag("lastFen", False),
    )


def _wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/json" in accept or NDJSON in accept


@endpoint()
def export(request: HttpRequest, token: TokenUse, game_id: str) -> HttpResponse:
    """``GET /game/export/{id}``: PGN, or ``GameJson`` with ``Accept:
    application/json``. ``moves``, ``pgnInJson``, ``tags``, ``evals``, ``accuracy``,
    ``opening``, ``lastFen`` as lichess's."""
    options = _options(gate.fields(request), single=True)
    game = lichess_reads.any_game(game_id)
    if _wants_json(request):
        return JsonResponse(lichess_exports.game_export_json(game, options))
    return HttpResponse(lichess_exports.game_export_pgn(game, options), content_type=PGN)


# --------------------------------------------------------------------------- a player's games


def _timestamp(value: str | None, *, name: str) -> dt.datetime | None:
    """lichess's time parameter, milliseconds since the epoch; None when absent."""
    if value is None or value == "":
        return None
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > MAX_TIMESTAMP_DIGITS:
        raise BadRequest(
            _("%(field)s must be a time in milliseconds since 1970.") % {"field": name}
        )
    return dt.datetime.fromtimestamp(int(text) / 1000, tz=dt.UTC)


def _max_games(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    text = value.strip()
    digits = text.isascii() and text.isdigit()
    if not digits or len(text.lstrip("0")) > len(str(MAX_GAMES)) or not 1 <= int(text) <= MAX_GAMES:
        raise BadRequest(
            _("max must be a whole number from 1 to %(limit)s.") % {"limit": MAX_GAMES}
        )
    return int(text)


def _choice(value: str | None, *, name: str, allowed: tuple[str, ...]) -> str:
    if value is None or value == "":
        return ""
    if value not in allowed:
        raise BadRequest(
            _("%(field)s must be one of: %(allowed)s.")
            % {"field": name, "allowed": ", ".join(allowed)}
        )
    return value


def _filter(fields: Mapping[str, str]) -> UserGamesFilter:
    since = _timestamp(fields.get("since"), name="since")
    until = _timestamp(fields.get("until"), name="until")
    colour = _choice(fields.get("color"), name="color", allowed=("white", "black"))
    sort = _choice(fields.get("sort"), name="sort", allowed=("dateAsc", "dateDesc"))
    finished = gate.flag(fields.get("finished"), name="finished")
    ongoing = gate.flag(fields.get("ongoing"), name="ongoing")
    opponent = fields.get("vs", "")
    opponent_id = None
    if opponent:
        # An opponent no account bears: no game (lichess answers an empty export).
        plausible = len(opponent) <= 150 and opponent.isprintable()
        opponent_id = account_selectors.player_id_of(opponent) if plausible else None
    return UserGamesFilter(
        since=since,
        until=until,
        opponent_id=opponent_id,
        opponent_unknown=bool(opponent) and opponent_id is None,
        rated=gate.flag(fields.get("rated"), name="rated"),
        colour=colour,
        finished=True if finished is None else finished,
        ongoing=False if ongoing is None else ongoing,
        ascending=sort == "dateAsc",
    )


async def _user_games(
    player: Any,
    wanted: UserGamesFilter,
    options: ExportOptions,
    *,
    limit: int | None,
    as_json: bool,
    slot: pgn_export.Slot,
) -> AsyncIterator[bytes]:
    """The export's body, a page at a time (``API_EXPORT_PAGE_GAMES`` games, read in a
    worker thread, sent before the next is read): nothing is kept between pages but the
    last game. The slot is given back however the stream ends (the client gone too)."""
    try:
        games = lichess_exports.user_games(player, wanted)
        last: Game | None = None
        sent = 0
        while limit is None or sent < limit:
            size = settings.API_EXPORT_PAGE_GAMES
            if limit is not None:
                size = min(size, limit - sent)
            await in_pool(slot.extend)()
            page = await in_pool(lichess_exports.page_after)(
                games, last, ascending=wanted.ascending, size=size
            )
            if not page:
                return
            if as_json:
                lines = await in_pool(lichess_exports.json_lines)(page, options)
                yield b"".join(ndjson(line) for line in lines)
            else:
                texts = await in_pool(lichess_exports.pgn_texts)(page, options)
                # Two blank lines between games, as lichess (and berserk's reader) has them.
                yield "".join(text + "\n\n" for text in texts).encode()
            sent += len(page)
            last = page[-1]
            if len(page) < size:
                return
    finally:
        slot.release()


@endpoint()
def user_games(request: HttpRequest, token: TokenUse, username: str) -> HttpResponseBase:
    """``GET /api/games/user/{username}``: the player's games, the latest first (or
    ``sort=dateAsc``), as PGN or ndjson (``Accept: application/x-ndjson``), filtered by
    ``since``, ``until``, ``vs``, ``rated``, ``color``, ``finished``, ``ongoing``; at most
    ``max``. At most ``PGN_DOWNLOADS_PER_PLAYER`` exports of a token's player at once."""
    fields = gate.fields(request)
    options = _options(fields, single=False)
    wanted = _filter(fields)
    limit = _max_games(fields.get("max"))
    player = account_selectors.active_player_named(username)
    slot = pgn_export.take_slot(token.player.pk)
    if slot is None:
        return gate.error(
            _("Too many exports at once: wait for one to finish."), 429, Retry_After="60"
        )
    as_json = _wants_json(request)
    response = StreamingHttpResponse(
        _user_games(player, wanted, options, limit=limit, as_json=as_json, slot=slot),
        content_type=NDJSON if as_json else PGN,
    )
    response["X-Accel-Buffering"] = "no"
    return response


# --------------------------------------------------------------------------- import


@endpoint(methods=("POST",))
def import_game(request: HttpRequest, token: TokenUse) -> JsonResponse:
    """``POST /api/import``: ``pgn``, one finished game (at most ``API_MAX_BODY_BYTES``
    in all, 413 beyond), stored as a game of no rating (:mod:`games.services.imports`);
    ``API_IMPORTS_PER_HOUR`` per token. Answers ``{"id", "url"}``."""
    fields = gate.fields(request)
    allowance = count_request(
        "api-import", str(token.token_id), limit=settings.API_IMPORTS_PER_HOUR, window=3600
    )
    if not allowance.allowed:
        return gate.error(
            _("Too many games imported: try again later."),
            429,
            Retry_After=str(allowance.retry_after),
        )
    imported = services.read_import(fields.get("pgn", ""))
    game = services.import_game(importer=token.player, imported=imported)
    return JsonResponse({"id": game.short_id, "url": lichess.game_url(game.short_id)})
