"""What clients see of games and challenges: the one read model.

Every front door builds its view of a game here and nowhere else: the game page and its
JSON (:mod:`games.views`), the WebSocket frames (:mod:`games.consumers`), the live events
(:mod:`games.events`), the lists of the lobby (:mod:`games.lobby`), the PGN (the page and
the admin) and the gateways. It
turns stored state into plain data; it never writes.

What depends only on the game's state, not on who looks (legal destinations, the draw
that can be claimed), is computed once per event in :func:`event_message` and shared by
every socket, and so are the frames themselves: serialized once per event for each kind
of socket (players, watchers, dashboards), so that a socket only sends a ready text.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from accounts.models import NotificationKind
from accounts.types import Player
from games import clock, conditional, rules, selectors
from games.models import Challenge, Game, Move, Notification
from ranking import selectors as ranking_selectors
from ranking.models import change_label, rating_label
from ranking.rating_rules import PROVISIONAL_DEVIATION, is_rated

# How people write a result; the stored value stays PGN's (``1/2-1/2``), which PGN
# exports and ESPOL need.
RESULT_LABELS = {"1/2-1/2": "½–½"}


def result_label(result: str) -> str:
    """A result as people read it: ``½–½`` for a draw, ``1-0`` and ``0-1`` as they are."""
    return RESULT_LABELS.get(result, result)


def game_ratings(game: Game) -> dict[str, Any]:
    """Each player's rating beside the game: for a game in progress, as it stands now;
    for a finished rated game, as that game left it, with its change (``+12``); ``rated``
    says whether the game changed ratings at all (false for a game in progress)."""
    changes = {} if game.is_active else ranking_selectors.game_rating_changes(game.pk)
    records = ranking_selectors.records_of([game.white_id, game.black_id])
    # Why a finished game changes no rating: a gateway's guest played (such games never
    # count), or it ended before both players moved. A rated game whose time ran out has
    # no change yet until the sweep ends it: ratings as they stand, the change to come.
    why_unrated = None
    if not game.is_active and not changes:
        if not game.rated:
            why_unrated = "guest"
        elif not is_rated(game.next_move_number - 1):
            why_unrated = "early"
    sides: dict[str, Any] = {"rated": bool(changes), "why_unrated": why_unrated}
    for colour, player_id in ((rules.WHITE, game.white_id), (rules.BLACK, game.black_id)):
        if not game.rated:
            # A guest has no rating, and a registered player's is not at stake here.
            sides[colour] = {"rating": "", "change": None}
            continue
        change = changes.get(player_id)
        if change is not None:
            provisional = change.deviation_after > PROVISIONAL_DEVIATION
            label = rating_label(change.rating_after, provisional=provisional)
            sides[colour] = {"rating": label, "change": change_label(change.change)}
        else:
            sides[colour] = {"rating": records[player_id].rating_label, "change": None}
    return sides


def fullmove_number(fen: str) -> int:
    """The chess move number of the move to play in ``fen`` (its sixth field)."""
    return int(fen.split(" ")[5])


def game_state(game: Game) -> dict[str, Any]:
    """The game as live clients see it (no moves: they come one by one)."""
    return {
        "id": game.pk,
        "public_id": game.public_id,
        "white": game.white.username,
        "black": game.black.username,
        "status": game.status,
        "result": game.result,
        "result_label": result_label(game.result),
        "termination": game.termination,
        "ended_by": game.ended_by or None,
        "draw_offer_by": game.draw_offer_by or None,
        "fen": game.fen,
        "initial_fen": game.start_fen,
        "turn": game.colour_to_move,
        "next_move_number": game.next_move_number,
        # The chess move number of the move to play (the FEN's): a game begun from a
        # position may start at any number, with either side to move.
        "move_number": fullmove_number(game.fen),
        "version": game.version,
        "updated_at": game.updated_at.isoformat(),
        "clock": clock_state(game),
    }


def clock_state(game: Game) -> dict[str, Any]:
    """The game's time control and, while it runs, whose clock and until when (UTC):
    pages count down to ``deadline`` themselves and show it in the reader's own time."""
    running = game.is_active and game.deadline is not None
    paused = running and game.paused_at is not None
    left = None
    if paused and game.deadline is not None and game.paused_at is not None:
        left = max(0, int((game.deadline - game.paused_at).total_seconds()))
    return {
        "days_per_move": game.days_per_move,
        "label": game.time_control_label,
        "deadline": game.deadline.isoformat() if running and not paused and game.deadline else None,
        "colour": game.colour_on_clock if running else None,
        # The player on the clock is on vacation: it stands still with this much left.
        "paused": paused,
        "paused_left_seconds": left,
    }


def move_state(move: Move) -> dict[str, Any]:
    # ``number`` counts half-moves from the game's start; ``colour`` and ``move_number``
    # are the chess ones, read from the position after the move, since a game started
    # from a FEN (chessirc) may begin with Black to move or at any move number.
    side_after, fullmove_after = move.fen_after.split(" ")[1], int(move.fen_after.split(" ")[5])
    colour = rules.BLACK if side_after == "w" else rules.WHITE
    return {
        "number": move.number,
        "colour": colour,
        "move_number": fullmove_after - 1 if colour == rules.BLACK else fullmove_after,
        "uci": move.uci,
        "san": move.san,
        "fen_after": move.fen_after,
        "played_at": move.played_at.isoformat(),
        "think_seconds": move.think_seconds,
        "reverse": move.reverse,
    }


def move_rows(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A move list (:func:`move_state` items) as pages show it: one row per chess move,
    labelled ``12.`` before White's move, or ``12. …`` when the row begins with Black's
    (the first move of a game begun with Black to move). The script's ``moveRows``
    (``static/js/game_text.js``) is the same rule, so a page reads the same on load and
    after a live move."""
    rows: list[dict[str, Any]] = []
    for move in moves:
        if move["colour"] == rules.WHITE or not rows:
            number = move["move_number"]
            label = f"{number}." if move["colour"] == rules.WHITE else f"{number}. …"
            rows.append({"label": label, "moves": []})
        rows[-1]["moves"].append(move)
    return rows


def result_strings() -> dict[str, str]:
    """The words of a result banner, in the active language: the page's script gets
    these same texts (``data.strings``) to write the banner after a live ending."""
    return {
        "whiteWins": gettext("White wins"),
        "blackWins": gettext("Black wins"),
        "draw": gettext("Draw"),
        "aborted": gettext("Aborted: no result"),
        "notRated": gettext("not rated: the game ended before both players moved"),
        "notRatedGuest": gettext("not rated: a guest of a TCP gateway played"),
    }


def termination_labels() -> dict[str, str]:
    """How each ending is named, by its stored value, in the active language."""
    return {value: str(label) for value, label in Game.Termination.choices}


def result_text(game: dict[str, Any], ratings: dict[str, Any]) -> str:
    """The result banner of a finished game, from its :func:`game_state` and
    :func:`game_ratings`: ``1-0 · White wins · Checkmate · alice 1520 (+8), bob 1480
    (−8)``. The script's ``resultText`` (``static/js/game_text.js``) writes the same
    from the same fields and words; "" for a game in progress."""
    if game["status"] == Game.Status.ACTIVE:
        return ""
    words = result_strings()
    if game["result"] == Game.Result.ONGOING:
        return words["aborted"]
    who = {"1-0": words["whiteWins"], "0-1": words["blackWins"]}.get(
        game["result"], words["draw"]
    )
    how = termination_labels().get(game["termination"], game["termination"])
    white, black = ratings[rules.WHITE], ratings[rules.BLACK]
    if ratings["rated"]:
        rated = (
            f"{game['white']} {white['rating']} ({white['change']}), "
            f"{game['black']} {black['rating']} ({black['change']})"
        )
    elif ratings["why_unrated"] == "guest":
        rated = words["notRatedGuest"]
    elif ratings["why_unrated"] == "early":
        rated = words["notRated"]
    else:
        # Rated, its change not yet written (the time ran out; the sweep records it).
        rated = f"{game['white']} {white['rating']}, {game['black']} {black['rating']}"
    return f"{game['result_label']} · {who} · {how} · {rated}"


def challenge_state(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username,
        "status": challenge.status,
        "days_per_move": challenge.days_per_move,
        "created_at": challenge.created_at.isoformat(),
        "game_id": challenge.game_id,
    }


def destinations(game: Game) -> dict[str, list[str]]:
    """Legal destinations per origin square (``{"e2": ["e3", "e4"]}``); none once finished."""
    return rules.legal_moves(game.fen) if game.is_active else {}


def claimable_draw(game: Game) -> str | None:
    """The draw either player could claim now (``"threefold_repetition"``,
    ``"fifty_moves"``), or ``None``; always ``None`` for a finished game.

    Reads the same window of moves as :func:`games.services.claim_draw`, so a page
    offers a claim exactly when the service would grant it. Most positions need no
    query: a third occurrence needs 8 plies since the last capture or pawn move.
    """
    if not game.is_active or rules.halfmove_clock(game.fen) < rules.THREEFOLD_MIN_PLIES:
        return None
    base_fen, history = selectors.repetition_window(game)
    termination = rules.claimable_draw(base_fen, history)
    return None if termination is None else termination.value


def _moves_of(game: Game, *, after: int = 0) -> QuerySet[Move]:
    """The moves of ``game`` after ``after`` up to its last as ``game`` holds it: a move
    committed since ``game`` was read belongs to the next version, not to this one."""
    return selectors.moves(game.pk, after=after, until=game.next_move_number - 1)


def snapshot(game: Game, *, viewer_id: int | None, after: int = 0) -> dict[str, Any]:
    """What a page needs to draw the game: its state, the moves after ``after``, the
    legal destinations and, for its players, the draw they may claim. Pages and sockets
    receive this same shape, so a page has one way to apply it."""
    is_player = viewer_id is not None and game.colour_of(viewer_id) is not None
    return {
        "type": "snapshot",
        "version": game.version,
        "game": game_state(game),
        "after": after,
        "moves": [move_state(m) for m in _moves_of(game, after=after)],
        "dests": destinations(game),
        "claimable": claimable_draw(game) if is_player else None,
        "ratings": game_ratings(game),
        # Sent to each viewer alone (pages, the state view, a socket's own snapshot):
        # a player's own lines, never anyone else's.
        "conditional": conditional_state(game, viewer_id=viewer_id) if is_player else None,
    }


def conditional_state(game: Game, *, viewer_id: int | None) -> dict[str, Any] | None:
    """The viewer's own conditional moves on ``game`` (:mod:`games.conditional`), each
    move in UCI and SAN; ``None`` for anyone but a player of the game in progress. Lines
    are private: nothing else in the read model, and no event, ever carries them."""
    if viewer_id is None or not game.is_active or game.colour_of(viewer_id) is None:
        return None
    found = conditional.lines_of(game, game.white if viewer_id == game.white_id else game.black)
    lines = [] if found is None else found.lines
    return {
        "move_number": game.next_move_number,
        "lines": [conditional.line_moves(game.fen, line) for line in lines],
        "max_lines": conditional.MAX_LINES,
        "max_plies": conditional.MAX_PLIES,
    }


def game_pgn(game: Game) -> str:
    """The whole game as PGN with the standard tags (Event, Site, Date, White, Black, …)."""
    return _pgn(game, _moves_of(game).values_list("uci", flat=True))


def games_pgn(games: Iterable[Game], *, batch_size: int = 200) -> Iterator[str]:
    """Each of ``games`` (finished ones: their moves no longer change) as PGN, in order,
    for one file of many games: the moves of each batch of ``batch_size`` games are read
    in one query."""
    batch: list[Game] = []
    for game in games:
        batch.append(game)
        if len(batch) == batch_size:
            yield from _pgn_batch(batch)
            batch = []
    if batch:
        yield from _pgn_batch(batch)


def _pgn_batch(games: list[Game]) -> Iterator[str]:
    ucis: dict[int, list[str]] = {game.pk: [] for game in games}
    rows = (
        Move.objects.filter(game_id__in=list(ucis))
        .order_by("game_id", "number")
        .values_list("game_id", "uci")
    )
    for game_id, uci in rows:
        ucis[game_id].append(uci)
    for game in games:
        yield _pgn(game, ucis[game.pk])


def _pgn(game: Game, ucis: Iterable[str]) -> str:
    headers = {
        "Event": f"Ajedrez correspondence game {game.public_id}",
        "Site": game.site or "Ajedrez",
        "Date": rules.pgn_date(game.created_at),
        "Round": "-",
        "White": game.white.username,
        "Black": game.black.username,
        "TimeControl": clock.pgn_time_control(game.days_per_move),
    }
    if game.opening_eco:
        headers["ECO"] = game.opening_eco
        headers["Opening"] = game.opening_name
    if game.is_active:
        headers["Termination"] = "unterminated"
        comment = None
    else:
        headers["Termination"] = {
            rules.Termination.ABANDONMENT: "abandoned",
            rules.Termination.TIMEOUT: "time forfeit",
            rules.Termination.ABORTED: "unterminated",
        }.get(rules.Termination(game.termination), "normal")
        # PGN is an interchange format: the reason stays in English, whatever the language.
        comment = game.termination.replace("_", " ")
    return rules.pgn(
        headers, ucis, result=game.result, termination_comment=comment, start_fen=game.start_fen
    )


# --------------------------------------------------------------------------- events


# Who a game event's frame is for: the game page of one of its players, the game page
# of anyone else, a player's dashboard.
PLAYER, WATCHER, DASHBOARD = "player", "watcher", "dashboard"


def event_message(game: Game, event: str, **extra: Any) -> dict[str, Any]:
    """A game event as the channel layer carries it, with everything every socket needs:
    what happened (``event``, ``version``, ``game``, ``dests``, ``claimable`` and the
    ``extra`` fields, such as the ``move``) and, under ``frames``, the JSON text each kind
    of socket sends (:data:`PLAYER`, :data:`WATCHER`, :data:`DASHBOARD`).

    Built once per event (after the commit: see :mod:`games.events`), never per socket:
    with a thousand watchers, per-socket work is what made a move slow to arrive.
    """
    content = {
        "type": "game.event",
        "event": event,
        "version": game.version,
        "game": game_state(game),
        "dests": destinations(game),
        "claimable": claimable_draw(game),
        **extra,
    }
    if not game.is_active:
        # The ending changed both ratings: the pages show the change at once.
        content["ratings"] = game_ratings(game)
    frames = {
        PLAYER: json.dumps(frame_for(content, is_player=True)),
        WATCHER: json.dumps(frame_for(content, is_player=False)),
        DASHBOARD: json.dumps(dashboard_frame(content, kind="game")),
    }
    return {**content, "frames": frames}


def frame_text(message: dict[str, Any], audience: str) -> str:
    """The frame a socket of ``audience`` sends for the game event ``message``."""
    return message["frames"][audience]


def frame_for(message: dict[str, Any], *, is_player: bool) -> dict[str, Any]:
    """A game event as one game page's socket receives it: the claim is the players'."""
    frame = {k: v for k, v in message.items() if k != "frames"}
    frame["type"] = "event"
    if not is_player:
        frame["claimable"] = None
    return frame


def dashboard_frame(message: dict[str, Any], *, kind: str) -> dict[str, Any]:
    """An event as a player's own pages (the dashboard) receive it: no board details."""
    frame = {k: v for k, v in message.items() if k not in ("dests", "claimable", "frames")}
    frame.update(type="event", kind=kind)
    return frame


# --------------------------------------------------------------------------- lists


def game_url(game_id: int) -> str:
    """The game page's address."""
    return reverse("game_detail", args=[game_id])


@dataclass(frozen=True)
class GameRow:
    """One game as a given player sees it in a list (dashboard, profile)."""

    game: Game
    my_colour: str
    opponent: Player
    my_turn: bool
    url: str

    @property
    def opponent_colour(self) -> str:
        return rules.BLACK if self.my_colour == rules.WHITE else rules.WHITE

    @property
    def move_count(self) -> int:
        return self.game.next_move_number - 1

    @property
    def last_move_label(self) -> str:
        """``12. Nf3`` after a white move, ``12… Nf6`` after a black one."""
        number = self.move_count
        if not number or not self.game.last_move_san:
            return ""
        dots = "." if number % 2 else "…"
        return f"{(number + 1) // 2}{dots} {self.game.last_move_san}"

    @property
    def outcome(self) -> str:
        """``won``, ``lost``, ``drawn``, ``aborted`` or ``ongoing``, from my side."""
        if self.game.is_active:
            return "ongoing"
        return _outcome_for_colour(self.game, self.my_colour)

    @property
    def deadline(self) -> dt.datetime | None:
        """When the player the game waits for runs out of time; None without a clock,
        and while it stands still (that player is on vacation)."""
        if not self.game.is_active or self.game.paused_at is not None:
            return None
        return self.game.deadline

    @property
    def deadline_is_mine(self) -> bool:
        """Whether the running clock is mine (the dashboard's countdown warns me)."""
        return self.deadline is not None and self.game.waits_for_colour(self.my_colour)

    @property
    def draw_offer_to_me(self) -> bool:
        offer = self.game.draw_offer_by
        return bool(offer) and offer != self.my_colour

    @property
    def draw_offer_by_me(self) -> bool:
        return self.game.draw_offer_by == self.my_colour

    @property
    def waits_for_me(self) -> bool:
        """Whether the game's next step is mine. While a draw offer is pending nobody may
        move: the step is the answer, owed by the player the offer was made to, whoever
        is to move."""
        return self.game.waits_for_colour(self.my_colour)


def game_row(game: Game, player: Player) -> GameRow:
    """``game`` as ``player`` (one of its two players) sees it in a list."""
    colour = game.colour_of(player.pk)
    if colour is None:
        raise ValueError(f"{player} does not play {game.public_id}")
    return GameRow(
        game=game,
        my_colour=colour,
        opponent=game.opponent_of(player.pk),
        my_turn=game.is_active and game.player_to_move_id == player.pk,
        url=game_url(game.pk),
    )


def awaiting_count(player: Player) -> int:
    """How many of ``player``'s games wait for them (a move, or an answer to a draw
    offer): the "your move" list counted by the database, one query."""
    return selectors.games_waiting_for(player).order_by().count()


# --------------------------------------------------------------------------- notifications


@dataclass(frozen=True)
class NotificationRow:
    """One line of the notifications page (and of the bell's list)."""

    pk: int
    kind: str
    text: str
    created_at: dt.datetime
    unread: bool
    open_url: str


def outcome_for(game: Game, player_id: int) -> str:
    """How the finished ``game`` went for ``player_id``: ``won``, ``lost``, ``drawn``,
    or ``aborted`` (ended with no result)."""
    return _outcome_for_colour(game, rules.WHITE if player_id == game.white_id else rules.BLACK)


def _outcome_for_colour(game: Game, colour: str) -> str:
    winner = game.winner_colour
    if winner is not None:
        return "won" if winner == colour else "lost"
    if game.result == Game.Result.DRAW:
        return "drawn"
    return "aborted"


def game_over_text(detail: dict[str, Any], game: str) -> str | None:
    """"You won P0000004 against bob (checkmate)." from a game-over notification's detail,
    as its recipient reads it; ``None`` for a detail written without the outcome."""
    outcome = detail.get("outcome")
    termination = detail.get("termination", "")
    names = {
        "game": game,
        "opponent": detail.get("opponent", ""),
        "how": Game.Termination(termination).label if termination else "",
    }
    if outcome == "won":
        return gettext("You won %(game)s against %(opponent)s (%(how)s).") % names
    if outcome == "lost":
        return gettext("You lost %(game)s against %(opponent)s (%(how)s).") % names
    if outcome == "drawn":
        return gettext("%(game)s against %(opponent)s was drawn (%(how)s).") % names
    if outcome == "aborted":
        return gettext("%(game)s against %(opponent)s was aborted (%(how)s).") % names
    return None


def _notification_names(notification: Notification) -> dict[str, Any]:
    """What the texts of a notification fill in: who acted (``player``, or ``name`` in
    the headlines) and the game's number."""
    actor = notification.actor
    # The actor's account deleted since: "Your opponent".
    who = actor.get_username() if actor is not None else gettext("Your opponent")
    game = notification.game.public_id if notification.game is not None else ""
    return {"player": who, "name": who, "game": game}


def notification_text(notification: Notification) -> str:
    """What the notification says, in the active language. Reads the actor, the game
    and the challenge: select them with the row."""
    detail = notification.detail or {}
    names = _notification_names(notification)
    kind = notification.kind
    if kind == NotificationKind.CHALLENGE_RECEIVED:
        names["time_control"] = clock.label(detail.get("days_per_move"))
        return gettext("%(player)s challenged you (%(time_control)s).") % names
    if kind == NotificationKind.CHALLENGE_ACCEPTED:
        return gettext("%(player)s accepted your challenge: %(game)s has started.") % names
    if kind == NotificationKind.CHALLENGE_DECLINED:
        return gettext("%(player)s declined your challenge.") % names
    if kind == NotificationKind.OPPONENT_MOVED:
        names["move"] = detail.get("san", "")
        count = int(detail.get("count", 1))
        if count > 1:
            names["count"] = count
            return gettext(
                "%(player)s played %(count)d moves in %(game)s, the last %(move)s: your move."
            ) % names
        return gettext("%(player)s played %(move)s in %(game)s: your move.") % names
    if kind == NotificationKind.DRAW_OFFERED:
        return gettext("%(player)s offers a draw in %(game)s.") % names
    if kind == NotificationKind.DRAW_ANSWERED:
        if detail.get("accepted"):
            return gettext("%(player)s accepted your draw offer in %(game)s.") % names
        return gettext("%(player)s declined your draw offer in %(game)s.") % names
    if kind == NotificationKind.GAME_OVER:
        if (text := game_over_text(detail, names["game"])) is not None:
            return text
        names["result"] = result_label(detail.get("result", ""))
        termination = detail.get("termination", "")
        names["how"] = Game.Termination(termination).label if termination else ""
        return gettext("%(game)s is over: %(result)s (%(how)s).") % names
    if kind == NotificationKind.LOW_TIME:
        return gettext("24 hours or less left on your clock in %(game)s.") % names
    if kind == NotificationKind.OPPONENT_ON_VACATION:
        return gettext(
            "%(player)s is on vacation: their clock in %(game)s stands still while it is "
            "their move."
        ) % names
    return str(notification.get_kind_display())


# The headlines of notifications (a mail's subject), by kind; a game over by outcome.
_HEADLINES: dict[str, Any] = {
    NotificationKind.OPPONENT_MOVED: gettext_lazy("Your move in %(game)s against %(name)s"),
    NotificationKind.CHALLENGE_RECEIVED: gettext_lazy("%(name)s challenges you"),
    NotificationKind.CHALLENGE_ACCEPTED: gettext_lazy("%(name)s accepted your challenge"),
    NotificationKind.CHALLENGE_DECLINED: gettext_lazy("%(name)s declined your challenge"),
    NotificationKind.DRAW_OFFERED: gettext_lazy("%(name)s offers a draw in %(game)s"),
    NotificationKind.DRAW_ANSWERED: gettext_lazy("Your draw offer in %(game)s"),
    NotificationKind.GAME_OVER: gettext_lazy("%(game)s is over"),
    NotificationKind.LOW_TIME: gettext_lazy("24 hours left in %(game)s"),
    NotificationKind.OPPONENT_ON_VACATION: gettext_lazy("%(name)s is on vacation"),
}
_GAME_OVER_HEADLINES = {
    "won": gettext_lazy("You won %(game)s"),
    "lost": gettext_lazy("You lost %(game)s"),
    "drawn": gettext_lazy("%(game)s was drawn"),
    "aborted": gettext_lazy("%(game)s was aborted"),
}


def notification_subject(notification: Notification) -> str:
    """The notification as a headline (a mail's subject); :func:`notification_text` says
    it whole. Reads the same rows."""
    headline = _HEADLINES.get(notification.kind)
    if notification.kind == NotificationKind.GAME_OVER:
        outcome = str((notification.detail or {}).get("outcome"))
        headline = _GAME_OVER_HEADLINES.get(outcome, headline)
    if headline is None:
        return str(notification.get_kind_display()).capitalize()
    return str(headline) % _notification_names(notification)


def notification_row(notification: Notification) -> NotificationRow:
    return NotificationRow(
        pk=notification.pk,
        kind=notification.kind,
        text=notification_text(notification),
        created_at=notification.created_at,
        unread=notification.read_at is None,
        open_url=reverse("notification_open", args=[notification.pk]),
    )


def notification_target(notification: Notification) -> str:
    """Where opening the notification leads: its game, or the challenges (dashboard)."""
    if notification.game_id is not None:
        return game_url(notification.game_id)
    return reverse("dashboard")
