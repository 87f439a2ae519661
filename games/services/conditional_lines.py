"""Conditional moves (lichess's Forecast): the lines a player sets for the opponent's
next moves, and the reply they give when the opponent's move starts one. The reply
itself is played by :mod:`games.services.moves`, as the player's own move."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.types import Player
from games import conditional, errors, rules
from games.models import ConditionalLines, Game
from games.services.guards import colour_in, lock_game, require_active
from games.services.timeouts import on_the_clock


@on_the_clock
@transaction.atomic
def set_conditional_lines(
    *, game_id: int, player: Player, move_number: int, lines: object
) -> list[list[str]]:
    """Replace ``player``'s conditional moves on the game with ``lines`` (a list of lists
    of moves in UCI or SAN, each starting with the opponent's move due as half-move
    ``move_number``); an empty list clears them. Judged move by move from the game's
    position (:mod:`games.conditional`); refused on the player's own turn. Returns the
    lines kept, in UCI.

    ``move_number`` must be the game's next one, as for
    :func:`games.services.moves.make_move`: lines written for a position the game has
    left (the opponent moved, a reply was played) are refused with
    :class:`~games.errors.WrongMoveNumber`, never read against another one.
    """
    game = lock_game(game_id)
    colour = colour_in(game, player)
    require_active(game)
    if move_number != game.next_move_number:
        raise errors.WrongMoveNumber(expected=game.next_move_number)
    if game.colour_to_move == colour:
        raise errors.ConditionalOnYourTurn()
    kept = conditional.read_lines(game, lines)
    if not kept:
        drop_lines_of(game, player)
        return kept
    ConditionalLines.objects.update_or_create(
        game=game,
        player=player,
        defaults={"from_move": game.next_move_number, "lines": kept, "updated_at": timezone.now()},
    )
    _note_lines(game, True)
    return kept


@transaction.atomic
def clear_conditional_lines(*, game_id: int, player: Player) -> None:
    """Drop ``player``'s conditional moves on the game (allowed at any time)."""
    game = lock_game(game_id)
    colour_in(game, player)
    drop_lines_of(game, player)


def drop_lines_of(game: Game, player: Player) -> None:
    """Drop ``player``'s lines on the locked ``game`` (cleared, or their reply could not
    be played)."""
    deleted, _ = ConditionalLines.objects.filter(game=game, player=player).delete()
    if deleted:
        _note_lines(game, ConditionalLines.objects.filter(game=game).exists())


def _note_lines(game: Game, any_left: bool) -> None:
    """Keep the locked ``game``'s ``has_conditional_lines`` true to its lines."""
    if game.has_conditional_lines != any_left:
        game.has_conditional_lines = any_left
        Game.objects.filter(pk=game.pk).update(has_conditional_lines=any_left)


def next_reply(game: Game, played_uci: str) -> tuple[Player, str] | None:
    """The player to move, and the reply their lines give to ``played_uci``, the move
    just played on the locked ``game``; their lines kept with what follows the reply, or
    dropped when none starts with the move. ``None``: nothing to play.

    A pending draw offer suspends the lines: they are kept and nothing is played until
    it is answered. (A move withdraws its player's own offer and no other move is let
    through while one is pending, so this guards the rule rather than a case the move
    path reaches today.)
    """
    if not game.is_active or game.draw_offer_by or not game.has_conditional_lines:
        return None
    owner = game.white if game.colour_to_move == rules.WHITE else game.black
    found = ConditionalLines.objects.filter(game=game, player=owner).first()
    if found is None:
        return None
    reply: str | None = None
    rest: list[list[str]] = []
    if found.from_move == game.next_move_number - 1:
        reply, rest = conditional.answer(found.lines, played_uci)
    if rest:
        found.lines, found.from_move = rest, game.next_move_number + 1
        found.save(update_fields=["lines", "from_move"])
    else:
        drop_lines_of(game, owner)
    return None if reply is None else (owner, reply)
