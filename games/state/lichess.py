"""The lichess API's shapes (docs/protocols/lichess.md): users, challenges, games as its
event and game streams carry them, built from stored state here, as the gateways' lines
are in :mod:`games.state.gateways`. Reads only.

Times are milliseconds since the epoch, ids are strings: a user's is the lower-cased
user name, a game's and a challenge's their eight-character ``short_id``. Every game
here is correspondence (days per move, or no clock: lichess's "unlimited").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts.types import Player
from games import clock, rules
from games.models import Challenge, Game, Seek
from ranking.models import PlayerRecord

# lichess's largest clock value: what it sends for a game without a clock.
NO_CLOCK_MILLIS = 2**31 - 1
DAY_MILLIS = 24 * 60 * 60 * 1000
BOT_TITLE = "BOT"
SPEED = "correspondence"
PERF = "correspondence"
PERF_NAME = "Correspondence"
STANDARD = {"key": "standard", "name": "Standard", "short": "Std"}
FROM_POSITION = {"key": "fromPosition", "name": "From Position", "short": "FEN"}
# Every game here can be played with both APIs (no clock too fast for a board).
COMPAT = {"bot": True, "board": True}

# lichess's game statuses (GameStatusName, GameStatusId).
STATUS_IDS = {
    "created": 10, "started": 20, "aborted": 25, "mate": 30, "resign": 31, "stalemate": 32,
    "timeout": 33, "draw": 34, "outoftime": 35,
}
# How a game ended here → lichess's status. "timeout" is lichess's name for a player
# who left the game (here: left the service, or a gateway's guest who left its session);
# "outoftime" for time run out.
TERMINATION_STATUS = {
    rules.Termination.CHECKMATE: "mate",
    rules.Termination.STALEMATE: "stalemate",
    rules.Termination.INSUFFICIENT_MATERIAL: "draw",
    rules.Termination.SEVENTYFIVE_MOVES: "draw",
    rules.Termination.FIVEFOLD_REPETITION: "draw",
    rules.Termination.THREEFOLD_REPETITION: "draw",
    rules.Termination.FIFTY_MOVES: "draw",
    rules.Termination.AGREEMENT: "draw",
    rules.Termination.RESIGNATION: "resign",
    rules.Termination.ABANDONMENT: "timeout",
    rules.Termination.TIMEOUT: "outoftime",
    rules.Termination.ABORTED: "aborted",
}
CHALLENGE_STATUS = {
    Challenge.Status.PENDING: "created",
    Challenge.Status.ACCEPTED: "accepted",
    Challenge.Status.DECLINED: "declined",
    Challenge.Status.WITHDRAWN: "canceled",
}


def millis(moment: dt.datetime | None) -> int | None:
    """``moment`` in milliseconds since the epoch (lichess's times)."""
    return None if moment is None else int(moment.timestamp() * 1000)


def user_id(username: str) -> str:
    """lichess's user id: the user name in lower case."""
    return username.lower()


def site_url(path: str) -> str:
    return settings.SITE_URL + path


def game_url(short_id: str) -> str:
    """The address lichess gives a game or a challenge: here ``/games/<short id>/``."""
    return site_url(reverse("game_by_short_id", args=[short_id]))


@dataclass(frozen=True)
class People:
    """What the shapes say of the players they name: records (ratings) and who is a
    bot, read once for all of them (:func:`games.selectors` and ranking's)."""

    records: dict[int, PlayerRecord]
    bots: frozenset[int]

    def light(self, player: Player) -> dict[str, Any]:
        """lichess's light user: id, name, rating, and ``title`` for a bot."""
        record = self.records.get(player.pk) or PlayerRecord(player_id=player.pk)
        found: dict[str, Any] = {
            "id": user_id(player.username),
            "name": player.username,
            "rating": round(record.rating),
            "provisional": record.is_provisional,
        }
        if player.pk in self.bots:
            found["title"] = BOT_TITLE
        return found


# --------------------------------------------------------------------------- account


def account(
    player: Player, record: PlayerRecord, *, playing: int, is_bot: bool
) -> dict[str, Any]:
    """``GET /api/account``: lichess's ``UserExtended``, with the one perf this service
    has, correspondence."""
    found: dict[str, Any] = {
        "id": user_id(player.username),
        "username": player.username,
        "perfs": {
            "correspondence": {
                "games": record.rated_games,
                "rating": round(record.rating),
                "rd": record.deviation_now,
                "prog": 0,
                "prov": record.is_provisional,
            }
        },
        "createdAt": millis(player.date_joined),
        "url": site_url(reverse("player_detail", args=[player.username])),
        "count": {
            "all": record.total_games,
            "rated": record.rated_games,
            "win": record.wins,
            "loss": record.losses,
            "draw": record.draws,
            "playing": playing,
        },
    }
    if player.last_login is not None:
        found["seenAt"] = millis(player.last_login)
    if is_bot:
        found["title"] = BOT_TITLE
    return found


def preferences(prefs: Any) -> dict[str, Any]:
    """``GET /api/account/preferences``: the preferences lichess also has, by its names
    (the board themes and the piece set bear lichess's names here too)."""
    return {
        "prefs": {
            "theme": prefs.board_theme,
            "pieceSet": prefs.piece_set,
            # lichess: 0 no coordinates, 1 inside the board.
            "coords": 1 if prefs.show_coordinates else 0,
            "confirmMove": prefs.confirm_moves,
        },
        "language": prefs.language or settings.LANGUAGE_CODE,
    }


# --------------------------------------------------------------------------- challenges


def time_control(
    days_per_move: int | None, fischer: clock.Fischer | None = None
) -> dict[str, Any]:
    if fischer is not None:
        # lichess's clock shape, in seconds: the nearest it has to a Fischer clock (by
        # lichess's own rule, a clock of a day or more is of correspondence speed). Its
        # "show" is lichess's base+increment, never translated; in days, since lichess's
        # minutes+seconds would read "43200+86400". The cap has no field in lichess.
        return {
            "type": "clock",
            "limit": fischer.base_days * 86_400,
            "increment": fischer.increment_days * 86_400,
            "show": f"{fischer.base_days}d+{fischer.increment_days}d",
        }
    if days_per_move is None:
        return {"type": "unlimited"}
    return {"type": "correspondence", "daysPerTurn": days_per_move}


def decline_reason_key(reason: str) -> str:
    """lichess's key of a decline reason, as its JSON writes it (lower case)."""
    return (reason or Challenge.DeclineReason.GENERIC).lower()


def challenge(
    found: Challenge, people: People, *, direction: str | None = None
) -> dict[str, Any]:
    """lichess's ``ChallengeJson``. ``color`` is who the challenger chose to play; a
    challenge where the challenged player picks (ESPOL's rule) shows ``random`` with no
    ``finalColor``: the challenger does not know their colour yet."""
    shown: dict[str, Any] = {
        "id": found.short_id,
        "url": game_url(found.short_id),
        "status": CHALLENGE_STATUS[Challenge.Status(found.status)],
        "challenger": people.light(found.challenger),
        "destUser": people.light(found.challenged),
        "variant": STANDARD,
        "rated": found.rated,
        "speed": SPEED,
        "timeControl": time_control(found.days_per_move, found.fischer),
        "color": (
            "random"
            if found.colour_choice == Challenge.ColourChoice.ACCEPTOR
            else found.colour_choice
        ),
        "perf": {"icon": "", "name": PERF_NAME},
    }
    if found.challenger_colour:
        shown["finalColor"] = found.challenger_colour
    if direction is not None:
        shown["direction"] = direction
    if found.status == Challenge.Status.DECLINED:
        key = found.decline_reason or Challenge.DeclineReason.GENERIC
        shown["declineReason"] = str(Challenge.DeclineReason(key).label)
        shown["declineReasonKey"] = decline_reason_key(key)
    return shown


def challenge_event(found: Challenge, people: People, *, for_player_id: int) -> dict[str, Any]:
    """The event stream's line for a challenge, as ``for_player_id`` reads it: made
    (``challenge``), withdrawn (``challengeCanceled``), declined (``challengeDeclined``)."""
    direction = "out" if found.challenger_id == for_player_id else "in"
    kind = {
        Challenge.Status.WITHDRAWN: "challengeCanceled",
        Challenge.Status.DECLINED: "challengeDeclined",
    }.get(Challenge.Status(found.status), "challenge")
    line: dict[str, Any] = {
        "type": kind,
        "challenge": challenge(found, people, direction=direction),
    }
    if kind == "challenge":
        line["compat"] = COMPAT
    return line


def open_challenge(found: Seek, people: People) -> dict[str, Any]:
    """lichess's ``ChallengeOpenJson`` for an open challenge (a seek): its join page,
    and the same with the colour asked for (``urlWhite``/``urlBlack``, which only a seek
    with random colours honours; the maker plays here, unlike lichess's, so the
    challenger is theirs)."""
    join = site_url(reverse("seek_detail", args=[found.short_id]))
    shown: dict[str, Any] = {
        "id": found.short_id,
        "url": join,
        "status": "created" if found.status == Seek.Status.OPEN else found.status,
        "challenger": people.light(found.maker),
        "destUser": None,
        "variant": STANDARD,
        "rated": found.rated,
        "speed": SPEED,
        "timeControl": time_control(found.days_per_move),
        "color": found.colour,
        "perf": {"icon": "", "name": PERF_NAME},
        "open": {},
        "urlWhite": f"{join}?color=white",
        "urlBlack": f"{join}?color=black",
    }
    if found.colour != Seek.MakerColour.RANDOM:
        shown["finalColor"] = found.colour
    if found.name:
        shown["name"] = found.name
    return shown


# --------------------------------------------------------------------------- games


def status_name(game: Game) -> str:
    """lichess's status of ``game`` (as :func:`games.selectors.effective` shows it)."""
    if game.is_active:
        return "started"
    return TERMINATION_STATUS.get(rules.Termination(game.termination), "draw")


def status(game: Game) -> dict[str, Any]:
    name = status_name(game)
    return {"id": STATUS_IDS[name], "name": name}


def side_millis(game: Game, colour: str, now: dt.datetime) -> int:
    """What ``colour`` has left on its clock, in milliseconds, as lichess's
    correspondence clock tells it: the running clock counts down to the deadline; a
    clock standing still (vacation, a draw offer awaiting its answer) shows what is
    left; the side not on the clock has a move's whole days."""
    banked = clock.bank_of(game, colour, now)
    if banked is not None:
        # A Fischer clock: each side's own bank (lichess clients read wtime/btime).
        return max(0, int(banked.total_seconds() * 1000))
    if game.days_per_move is None:
        return NO_CLOCK_MILLIS
    whole = game.days_per_move * DAY_MILLIS
    if not game.is_active or game.deadline is None:
        return whole
    if colour == game.colour_on_clock:
        left = game.deadline - (game.paused_at or now)
        return max(0, int(left.total_seconds() * 1000))
    if game.time_left is not None and colour == game.colour_to_move:
        # The offerer's clock stopped when they offered: this much waits for them.
        return max(0, int(game.time_left.total_seconds() * 1000))
    return whole


def game_state(
    game: Game, moves: Sequence[str], *, now: dt.datetime | None = None
) -> dict[str, Any]:
    """The game stream's ``gameState``: the moves in UCI, both clocks, the status, the
    winner and the pending draw offer (``wdraw``/``bdraw``, only when true)."""
    now = now or timezone.now()
    line: dict[str, Any] = {
        "type": "gameState",
        "moves": " ".join(moves),
        "wtime": side_millis(game, rules.WHITE, now),
        "btime": side_millis(game, rules.BLACK, now),
        "winc": _increment_millis(game),
        "binc": _increment_millis(game),
        "status": status_name(game),
    }
    if game.winner_colour:
        line["winner"] = game.winner_colour
    if game.draw_offer_by == rules.WHITE:
        line["wdraw"] = True
    if game.draw_offer_by == rules.BLACK:
        line["bdraw"] = True
    return line


def _increment_millis(game: Game) -> int:
    fischer = game.fischer
    return 0 if fischer is None else fischer.increment_days * DAY_MILLIS


def _variant(game: Game) -> dict[str, Any]:
    return FROM_POSITION if game.initial_fen else STANDARD


def game_full(
    game: Game, moves: Sequence[str], people: People, *, now: dt.datetime | None = None
) -> dict[str, Any]:
    """The game stream's first line, ``gameFull``: what does not change, and the state."""
    full: dict[str, Any] = {
        "type": "gameFull",
        "id": game.short_id,
        "variant": _variant(game),
        "speed": SPEED,
        "perf": {"name": PERF_NAME},
        "rated": game.rated,
        "createdAt": millis(game.created_at),
        "white": people.light(game.white),
        "black": people.light(game.black),
        "initialFen": game.initial_fen or "startpos",
        "state": game_state(game, moves, now=now),
    }
    if game.days_per_move is not None:
        full["daysPerTurn"] = game.days_per_move
    if (fischer := game.fischer) is not None:
        # lichess's real-time clock shape, in milliseconds (it has no correspondence
        # Fischer clock); the cap has no field there.
        full["clock"] = {
            "initial": fischer.base_days * DAY_MILLIS,
            "increment": fischer.increment_days * DAY_MILLIS,
        }
    return full


def full_id(game: Game, colour: str) -> str:
    """lichess's full id: the game's and four characters for the player (here, the
    start of the colour's name)."""
    return game.short_id + colour[:4]


def game_info(
    game: Game, player_id: int, people: People, *, last_move: str, now: dt.datetime | None = None
) -> dict[str, Any]:
    """lichess's ``GameEventInfo`` (the event stream's ``gameStart`` and ``gameFinish``,
    ``GET /api/account/playing``), as the player ``player_id`` sees the game."""
    now = now or timezone.now()
    colour = game.colour_of(player_id)
    assert colour is not None
    opponent = game.black if colour == rules.WHITE else game.white
    plies = game.next_move_number - 1
    info: dict[str, Any] = {
        "fullId": full_id(game, colour),
        "gameId": game.short_id,
        "id": game.short_id,
        "fen": game.fen,
        "color": colour,
        "lastMove": last_move,
        "source": "friend",
        "status": status(game),
        "variant": _variant(game),
        "speed": SPEED,
        "perf": PERF,
        "rated": game.rated,
        "hasMoved": rules.plies_played_by(colour, start_fen=game.start_fen, plies=plies) > 0,
        "opponent": {
            "id": user_id(opponent.username),
            "username": opponent.username,
            "rating": people.light(opponent)["rating"],
        },
        "isMyTurn": game.is_active and game.colour_to_move == colour,
        "compat": COMPAT,
    }
    if (game.days_per_move is not None or game.fischer is not None) and game.is_active:
        info["secondsLeft"] = side_millis(game, colour, now) // 1000
    if game.winner_colour:
        info["winner"] = game.winner_colour
    return info


def game_json(
    game: Game,
    sans: Sequence[str] | None,
    people: People,
    *,
    pgn: str | None = None,
    opening: bool = True,
    last_fen: bool = False,
    analysis: Sequence[dict[str, Any]] | None = None,
    player_analysis: dict[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    """``GET /game/export/{id}`` as JSON: lichess's ``GameJson`` (the moves in SAN, as
    lichess writes them there; none when ``sans`` is None). ``analysis`` and
    ``player_analysis``: the engine's, as :mod:`games.state.lichess_analysis` exports
    them; ``last_fen``: the position now (lichess's ``lastFen``)."""
    def player(side: Player) -> dict[str, Any]:
        light = people.light(side)
        shown: dict[str, Any] = {
            "user": {"name": side.username, "id": light["id"]},
            "rating": light["rating"],
            "provisional": light["provisional"],
        }
        if "title" in light:
            shown["user"]["title"] = light["title"]
        return shown

    found: dict[str, Any] = {
        "id": game.short_id,
        "rated": game.rated,
        "variant": _variant(game)["key"],
        "speed": SPEED,
        "perf": PERF,
        "createdAt": millis(game.created_at),
        "lastMoveAt": millis(game.last_move_at or game.created_at),
        "status": status_name(game),
        "source": "friend",
        "players": {"white": player(game.white), "black": player(game.black)},
    }
    if game.initial_fen:
        found["initialFen"] = game.initial_fen
    if game.winner_colour:
        found["winner"] = game.winner_colour
    if player_analysis:
        for colour, summary in player_analysis.items():
            if summary:
                found["players"][colour]["analysis"] = summary
    if opening and game.opening_eco:
        found["opening"] = {"eco": game.opening_eco, "name": game.opening_name, "ply": 0}
    if sans is not None:
        found["moves"] = " ".join(sans)
    if pgn is not None:
        found["pgn"] = pgn
    if analysis is not None:
        found["analysis"] = list(analysis)
    if last_fen:
        found["lastFen"] = game.fen
    if game.days_per_move is not None:
        found["daysPerTurn"] = game.days_per_move
    return found


def watched_game(
    game: Game, people: People, *, last_move: str, now: dt.datetime | None = None
) -> dict[str, Any]:
    """``GET /api/stream/game/{id}``'s description of the game (lichess's first line of
    "stream moves of a game", and its last once the game ends)."""
    plies = game.next_move_number - 1
    line: dict[str, Any] = {
        "id": game.short_id,
        "variant": _variant(game),
        "speed": SPEED,
        "perf": PERF,
        "rated": game.rated,
        "initialFen": game.start_fen,
        "fen": game.fen,
        "player": game.colour_to_move,
        "turns": plies,
        "startedAtTurn": 0,
        "source": "friend",
        "status": status(game),
        "createdAt": millis(game.created_at),
        "players": {
            colour: {"user": {"name": side.username, "id": user_id(side.username)},
                     "rating": people.light(side)["rating"]}
            for colour, side in ((rules.WHITE, game.white), (rules.BLACK, game.black))
        },
    }
    if last_move:
        line["lastMove"] = last_move
    if game.winner_colour:
        line["winner"] = game.winner_colour
    if game.days_per_move is not None:
        line["daysPerTurn"] = game.days_per_move
    return line


def watched_position(
    game: Game, fen: str, last_move: str | None, *, now: dt.datetime | None = None
) -> dict[str, Any]:
    """A position of "stream moves of a game": the board and the side to move (lichess
    sends the FEN's first two fields), the move that led there (``lm``), and both clocks
    in seconds as they stand now (``wc``, ``bc``: a correspondence game keeps none per
    move)."""
    now = now or timezone.now()
    line: dict[str, Any] = {"fen": " ".join(fen.split(" ")[:2])}
    if last_move:
        line["lm"] = last_move
    line["wc"] = side_millis(game, rules.WHITE, now) // 1000
    line["bc"] = side_millis(game, rules.BLACK, now) // 1000
    return line


def chat_line(message: dict[str, Any]) -> dict[str, Any]:
    """A chat message (:func:`games.chat.message_state`) as the game stream's
    ``chatLine``: the players' room is lichess's ``player``, the spectators' its
    ``spectator``."""
    return {
        "type": "chatLine",
        "room": "player" if message["room"] == "players" else "spectator",
        "username": message["author"],
        "text": message["text"],
    }


def chat_history(messages: Iterable[Any]) -> list[dict[str, str]]:
    """``GET …/chat``: lichess's ``PlayerGameChat``, oldest first."""
    return [{"text": m.text, "user": m.author.get_username()} for m in messages]


def opponent_gone(*, gone: bool, claim_in_seconds: int | None = None) -> dict[str, Any]:
    """The game stream's ``opponentGone``: here, the opponent's time has run out and the
    win may be claimed now (``claimWinInSeconds`` 0), or no longer so."""
    line: dict[str, Any] = {"type": "opponentGone", "gone": gone}
    if gone and claim_in_seconds is not None:
        line["claimWinInSeconds"] = claim_in_seconds
    return line
