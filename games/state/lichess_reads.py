"""The reads behind the lichess API's answers (:mod:`games.state.lichess` shapes them):
a game by any of its ids, its moves in UCI, the last move of each of a player's games,
the people a shape names. Each in a bounded number of indexed queries; reads only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q

from accounts import selectors as account_selectors
from accounts.types import Player
from games import errors, selectors
from games.models import Challenge, Game, Move, Seek
from games.models.games import is_short_id
from games.state.lichess import People, challenge_event, game_info
from ranking import selectors as ranking_selectors


def people(players: Iterable[Player]) -> People:
    """The records and bot marks of ``players`` (two queries)."""
    ids = {player.pk for player in players}
    return People(ranking_selectors.records_of(ids), frozenset(account_selectors.bots_among(ids)))


def game_of(player: Player, text: str) -> Game:
    """The game ``text`` names (any door's spelling: :func:`games.selectors.game_pk_of`),
    as it stands now, when ``player`` plays in it; :class:`~games.errors.GameNotFound`
    when there is none, :class:`~games.errors.NotAPlayer` when it is someone else's."""
    pk = selectors.game_pk_of(text)
    if pk is None:
        raise errors.GameNotFound()
    found = selectors.game(pk)
    if found.colour_of(player.pk) is None:
        raise errors.NotAPlayer(str(errors.NotAPlayer.default_message))
    return found


def any_game(text: str) -> Game:
    """The game ``text`` names (any door's spelling), as it stands now: any player may
    read any game (``docs/security.md``); :class:`~games.errors.GameNotFound` otherwise."""
    pk = selectors.game_pk_of(text)
    if pk is None:
        raise errors.GameNotFound()
    return selectors.game(pk)


def sans(game: Game) -> list[str]:
    """The moves of ``game`` in SAN (one query)."""
    return list(
        selectors.moves(game.pk, until=game.next_move_number - 1).values_list("san", flat=True)
    )


def moves_uci(game: Game, *, after: int = 0) -> list[str]:
    """The moves of ``game`` in UCI after half-move ``after``, up to its last as ``game``
    holds it (one query)."""
    return list(
        selectors.moves(game.pk, after=after, until=game.next_move_number - 1).values_list(
            "uci", flat=True
        )
    )


def positions_after(game: Game, *, after: int = 0) -> list[tuple[str, str]]:
    """The moves of ``game`` after half-move ``after`` as (UCI, FEN after it), up to its
    last as ``game`` holds it (one query)."""
    return list(
        selectors.moves(game.pk, after=after, until=game.next_move_number - 1).values_list(
            "uci", "fen_after"
        )
    )


def last_moves(games: Iterable[Game]) -> dict[int, str]:
    """The last move in UCI of each of ``games`` that has one (one query, through the
    (game, number) index)."""
    wanted = Q()
    for game in games:
        if game.next_move_number > 1:
            wanted |= Q(game_id=game.pk, number=game.next_move_number - 1)
    if not wanted:
        return {}
    return dict(Move.objects.filter(wanted).values_list("game_id", "uci"))


def game_infos(player: Player, games: list[Game]) -> list[dict[str, Any]]:
    """``games`` as lichess's ``GameEventInfo`` for ``player`` (three queries in all)."""
    lasts = last_moves(games)
    named = people([p for game in games for p in (game.white, game.black)])
    return [game_info(game, player.pk, named, last_move=lasts.get(game.pk, "")) for game in games]


def playing(player: Player, *, limit: int) -> list[Game]:
    """``player``'s games in progress, the most urgent first (lichess's order): those
    waiting for them, the least time left first, then the others."""
    mine = list(selectors.games_waiting_for(player)[:limit])
    if len(mine) < limit:
        mine += list(selectors.games_waiting_for_opponent(player)[: limit - len(mine)])
    return mine


def waiting_for_turn(player: Player) -> int:
    """How many of ``player``'s games wait for their move (lichess's ``nbMyTurn``)."""
    return selectors.games_waiting_for(player).count()


def pending_challenges(player: Player) -> tuple[list[Challenge], list[Challenge]]:
    """``player``'s pending challenges: received, then made."""
    return (
        list(selectors.pending_challenges_to(player)),
        list(selectors.pending_challenges_from(player)),
    )


def challenge_of(player: Player, short_id: str) -> Challenge:
    """The challenge ``short_id`` made by or to ``player``;
    :class:`~games.errors.ChallengeNotFound` otherwise."""
    found = selectors.challenge_by_short_id(short_id)
    if found is None or player.pk not in (found.challenger_id, found.challenged_id):
        raise errors.ChallengeNotFound(str(errors.ChallengeNotFound.default_message))
    return found


def challenge_event_of(player: Player, challenge_id: int) -> dict[str, Any] | None:
    """The event stream's line for the challenge ``challenge_id`` as ``player`` reads
    it, or None when it is gone."""
    found = (
        Challenge.objects.select_related("challenger", "challenged")
        .filter(pk=challenge_id)
        .first()
    )
    if found is None:
        return None
    return challenge_event(
        found, people([found.challenger, found.challenged]), for_player_id=player.pk
    )


def opening_events(player: Player) -> list[dict[str, Any]]:
    """What the event stream sends when it opens, as lichess does: every pending
    challenge (received and made), then a ``gameStart`` for each game in progress."""
    received, made = pending_challenges(player)
    challenges = received + made
    named = people([p for c in challenges for p in (c.challenger, c.challenged)])
    lines = [challenge_event(c, named, for_player_id=player.pk) for c in challenges]
    games = list(selectors.games_of(player, status=Game.Status.ACTIVE))
    lines += [{"type": "gameStart", "game": info} for info in game_infos(player, games)]
    return lines


def game_event(player: Player, game_id: int, kind: str) -> dict[str, Any] | None:
    """``gameStart`` or ``gameFinish`` of the game ``game_id`` for ``player``."""
    try:
        found = selectors.game_for_player(game_id, player)
    except errors.GameNotFound:
        return None
    return {"type": kind, "game": game_infos(player, [found])[0]}


def open_seek_of(player: Player, short_id: str) -> Seek | None:
    """``player``'s own seek ``short_id`` while it is open, or None."""
    if not is_short_id(short_id):
        return None
    return Seek.objects.filter(
        short_id=short_id, maker_id=player.pk, status=Seek.Status.OPEN
    ).first()
