"""Games in lists: a player's rows (dashboard, lists, profile, ESPOL PPEN), the live
lobby's rows, and where a listed player stands with the reader."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.urls import reverse

from accounts.types import Player
from games import rules, selectors
from games.models import Challenge, Game
from games.state.game import fullmove_number


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


@dataclass(frozen=True)
class LiveGame:
    """A game in progress as the live lobby lists it."""

    game: Game

    @property
    def move_number(self) -> int:
        """The chess move number (the FEN's), as a board's move list counts."""
        return fullmove_number(self.game.fen)

    @property
    def colour_to_move(self) -> str:
        return self.game.colour_to_move


@dataclass(frozen=True)
class GameLink:
    """A game in progress named by its number, for a link to it."""

    public_id: str
    url: str


@dataclass(frozen=True)
class Relation:
    """Where a listed player stands with me: our games in progress (oldest first), a
    pending challenge either way, and how many games the site lets a pair play at once."""

    games: tuple[GameLink, ...] = ()
    challenge_sent: Challenge | None = None
    challenge_received: Challenge | None = None
    games_per_pair: int = 1

    @property
    def can_challenge(self) -> bool:
        """Whether a challenge from me would be taken, by the service's rules
        (:mod:`games.services.challenges`): room for another game, none of mine pending,
        and, if they challenged me, room for theirs and mine."""
        if self.challenge_sent is not None:
            return False
        waiting = 1 if self.challenge_received is not None else 0
        return len(self.games) + waiting < self.games_per_pair


def relations_of(player: Player) -> dict[int, Relation]:
    """``player``'s relation to every other player with whom they have a game in
    progress or a pending challenge, in two queries, and a third for the site's limit
    when it matters (a game in progress, or a challenge received)."""
    games = selectors.opponents_in_active_games(player)
    sent: dict[int, Challenge] = {}
    received: dict[int, Challenge] = {}
    for found in selectors.pending_challenges_between(player):
        if found.challenger_id == player.pk:
            sent[found.challenged_id] = found
        else:
            received[found.challenger_id] = found
    # Without either, "can I challenge?" is yes whatever the limit (it is at least 1).
    limit = selectors.games_per_pair() if games or received else 1
    return {
        other: Relation(
            games=tuple(
                GameLink(Game.public_id_of(game_id), game_url(game_id))
                for game_id in games.get(other, ())
            ),
            challenge_sent=sent.get(other),
            challenge_received=received.get(other),
            games_per_pair=limit,
        )
        for other in {*games, *sent, *received}
    }
