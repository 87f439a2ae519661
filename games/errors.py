"""Domain errors raised by the games' service layer.

Each error has a stable machine ``code`` (front doors map it: HTTP status, WebSocket error
frame, ESPOL response code) and a human ``message``. The base class, and the errors about
accounts (a player who does not exist, a refused subscription), are in
:mod:`accounts.errors`.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ajedrez.core.errors import DomainError


class GameNotFound(DomainError):
    code = "game_not_found"
    default_message = _("No such game.")


class NotAPlayer(DomainError):
    code = "not_a_player"
    default_message = _("You do not play in this game.")


class NotYourTurn(DomainError):
    code = "not_your_turn"
    default_message = _("It is not your turn.")


class InvalidMove(DomainError):
    """The move text could not be read as a move at all (neither UCI nor SAN)."""

    code = "invalid_move"
    default_message = _("That is not a move.")


class InvalidPosition(DomainError):
    code = "invalid_position"
    default_message = _("That is not a legal position to start a game from.")


class IllegalMove(DomainError):
    code = "illegal_move"
    default_message = _("That move is not legal in this position.")


class WrongMoveNumber(DomainError):
    """A stale or duplicate submission: the move number is not the next one."""

    code = "wrong_move_number"
    default_message = _("The move number is not the next one.")

    def __init__(self, expected: int, message: str | None = None) -> None:
        super().__init__(
            message or _("The move number is not the next one (expected %(n)d).") % {"n": expected},
            expected=expected,
        )
        self.expected = expected


class GameFinished(DomainError):
    code = "game_finished"
    default_message = _("The game is already finished.")


class GameInProgress(DomainError):
    code = "game_in_progress"
    default_message = _("The game is still in progress.")


class TournamentGameKept(DomainError):
    code = "tournament_game_kept"
    default_message = _(
        "A tournament's game is part of its event's tables and is not deleted."
    )


class DrawOfferPending(DomainError):
    code = "draw_offer_pending"
    default_message = _("A draw offer is pending: it must be answered first.")


class DrawOfferTooSoon(DomainError):
    code = "draw_offer_too_soon"
    default_message = _("You have offered a draw since your last move: make a move first.")


class NoDrawOffer(DomainError):
    code = "no_draw_offer"
    default_message = _("There is no draw offer to answer.")


class NothingToClaim(DomainError):
    code = "nothing_to_claim"
    default_message = _("There is no draw to claim in this position.")


class ChallengeExists(DomainError):
    code = "challenge_exists"
    default_message = _("A challenge between you is already pending.")


class OpponentChallengedFirst(DomainError):
    code = "opponent_challenged_first"
    default_message = _("That player has already challenged you: answer their challenge.")


class ActiveGameExists(DomainError):
    """The two players already have as many games in progress together as the site
    allows (its rules: one, unless the administrator allows more)."""

    code = "active_game_exists"
    default_message = _("You already have a game in progress with that player.")

    def __init__(self, *, limit: int = 1) -> None:
        message = None
        if limit > 1:
            message = ngettext(
                "You already have %(limit)d game in progress with that player, the most "
                "this site allows.",
                "You already have %(limit)d games in progress with that player, the most "
                "this site allows.",
                limit,
            ) % {"limit": limit}
        super().__init__(message, limit=limit)
        self.limit = limit


class SelfChallenge(DomainError):
    code = "self_challenge"
    default_message = _("You cannot challenge yourself.")


class InvalidGamesPerPair(DomainError):
    code = "invalid_games_per_pair"
    default_message = _("Games between two players must be a whole number from 1 to 100, or empty.")


class ChallengeRateLimited(DomainError):
    code = "challenge_rate_limited"
    default_message = _("You have sent too many challenges lately: wait before the next.")

    def __init__(self, *, retry_after: int = 60) -> None:
        minutes = max(1, -(-retry_after // 60))
        super().__init__(
            ngettext(
                "You have sent too many challenges lately: the next may go in %(minutes)d "
                "minute.",
                "You have sent too many challenges lately: the next may go in %(minutes)d "
                "minutes.",
                minutes,
            ) % {"minutes": minutes},
            retry_after=retry_after,
        )


class ChallengeNotFound(DomainError):
    code = "challenge_not_found"
    default_message = _("No pending challenge from that player.")


class SeekNotFound(DomainError):
    code = "seek_not_found"
    default_message = _("No such open challenge.")


class SeekTaken(DomainError):
    code = "seek_taken"
    default_message = _("Someone else has already accepted this open challenge.")


class SeekCancelled(DomainError):
    code = "seek_cancelled"
    default_message = _("This open challenge was cancelled by its maker.")


class OwnSeek(DomainError):
    code = "own_seek"
    default_message = _("You cannot accept your own open challenge: wait for an opponent.")


class OutOfRatingRange(DomainError):
    code = "out_of_rating_range"
    default_message = _("Your rating is outside the range this open challenge admits.")


class InvalidRatingRange(DomainError):
    code = "invalid_rating_range"
    default_message = _(
        "The rating range must be two whole numbers from 0 to 4000, the lowest first."
    )


class TooManySeeks(DomainError):
    code = "too_many_seeks"

    def __init__(self, *, limit: int) -> None:
        super().__init__(
            ngettext(
                "You already have %(limit)d open challenge waiting, the most allowed: "
                "cancel one first.",
                "You already have %(limit)d open challenges waiting, the most allowed: "
                "cancel one first.",
                limit,
            )
            % {"limit": limit}
        )


class BotsCannotSeek(DomainError):
    code = "bots_cannot_seek"
    default_message = _("Bots do not make or accept open challenges.")


class InvalidSeekName(DomainError):
    code = "invalid_seek_name"
    default_message = _("The name of an open challenge is at most 100 characters.")


class InvalidColour(DomainError):
    code = "invalid_colour"
    default_message = _("The colour must be white or black.")


class ColourChosenByChallenger(DomainError):
    """The challenger chose the colours: the challenged player may not pick another."""

    code = "colour_chosen_by_challenger"
    default_message = _("The challenger chose the colours.")

    def __init__(self, *, colour: str = "") -> None:
        """``colour``: the one left to the challenged player, named in the message."""
        message = {
            "white": _("The challenger chose the colours: you play white."),
            "black": _("The challenger chose the colours: you play black."),
        }.get(colour)
        super().__init__(None if message is None else str(message), colour=colour)


class InvalidDeclineReason(DomainError):
    code = "invalid_decline_reason"
    default_message = _(
        "Unknown reason: generic, later, tooFast, tooSlow, timeControl, rated, casual, "
        "standard, variant, noBot or onlyBot."
    )


class NotAbortable(DomainError):
    code = "not_abortable"
    default_message = _("This game can no longer be aborted: both players have moved.")


class NoVictoryToClaim(DomainError):
    code = "no_victory_to_claim"
    default_message = _(
        "You cannot claim the win on this game: your opponent's time has not run out."
    )


class BotUpgradeRefused(DomainError):
    code = "bot_upgrade_refused"
    default_message = _("This account cannot become a bot.")


class InvalidTimeControl(DomainError):
    code = "invalid_time_control"
    default_message = _("The time control must be 1, 2, 3, 5, 7, 10 or 14 days per move, or none.")


BOTH_CLOCKS_MESSAGE = _("Choose days per move or a Fischer clock, not both.")


class AlreadyOnVacation(DomainError):
    code = "already_on_vacation"
    default_message = _("You are already on vacation.")


class NotOnVacation(DomainError):
    code = "not_on_vacation"
    default_message = _("You are not on vacation.")


class NoVacationLeft(DomainError):
    code = "no_vacation_left"
    default_message = _("You have used this year's vacation.")
class ChatNotAllowed(DomainError):
    code = "chat_not_allowed"
    default_message = _("You cannot write in this chat.")


class ChatMessageInvalid(DomainError):
    code = "chat_message_invalid"
    default_message = _("A message has 1 to 300 characters.")


class ChatRateLimited(DomainError):
    code = "chat_rate_limited"
    default_message = _("You are writing too fast: wait a moment.")


class ChatMuted(DomainError):
    code = "chat_muted"
    default_message = _("You have been muted in the chat.")


class ConditionalLinesInvalid(DomainError):
    """Conditional moves that cannot be kept: the message says which line and why."""

    code = "conditional_invalid"
    default_message = _("These conditional moves cannot be kept.")


class ConditionalOnYourTurn(DomainError):
    code = "conditional_on_your_turn"
    default_message = _("It is your turn: play your move instead of setting conditional moves.")


class TournamentNotFound(DomainError):
    code = "tournament_not_found"
    default_message = _("No such tournament.")


class RegistrationClosed(DomainError):
    """The event no longer takes players: it started, was called off, or its date passed."""

    code = "registration_closed"
    default_message = _("Registration for this tournament is closed.")


class TournamentFull(DomainError):
    code = "tournament_full"
    default_message = _("This tournament is full.")


class AlreadyRegistered(DomainError):
    code = "already_registered"
    default_message = _("You have already joined this tournament.")


class NotRegistered(DomainError):
    code = "not_registered"
    default_message = _("You are not playing in this tournament.")


class RatingOutOfBounds(DomainError):
    code = "rating_out_of_bounds"
    default_message = _("Your rating is outside this tournament's bounds.")


class BotInTournament(DomainError):
    """A bot plays through the lichess API alone, which has no door to events: it takes
    part in none."""

    code = "bot_in_tournament"
    default_message = _("A bot account does not play in tournaments.")


class TournamentNotRunning(DomainError):
    """A withdrawal from an event that is not being played (over, or not begun: then the
    player leaves it instead)."""

    code = "tournament_not_running"
    default_message = _("This tournament is not being played.")


class InvalidTournament(DomainError):
    """An event whose settings do not fit together: the message says which."""

    code = "invalid_tournament"
    default_message = _("These tournament settings do not fit together.")


class EngineNotAllowed(DomainError):
    """Fair play: the engine never helps with a game in progress, whatever door asks."""

    code = "engine_not_allowed"
    default_message = _("No engine while the game is in progress.")


class EngineUnavailable(DomainError):
    code = "engine_unavailable"
    default_message = _("The computer analysis is not available on this server.")


class AnalysisRateLimited(DomainError):
    code = "analysis_rate_limited"
    default_message = _("You have asked the engine too often lately: wait a moment.")

    def __init__(self, *, retry_after: int = 60) -> None:
        super().__init__(
            ngettext(
                "You have asked the engine too often lately: ask again in %(seconds)d second.",
                "You have asked the engine too often lately: ask again in %(seconds)d seconds.",
                retry_after,
            ) % {"seconds": retry_after},
            retry_after=retry_after,
        )


class NoteInvalid(DomainError):
    code = "note_invalid"
    default_message = _("A note has at most 5000 characters.")


class InvalidImport(DomainError):
    """PGN text that cannot be imported; the message says why."""

    code = "invalid_import"
    default_message = _("That PGN cannot be imported.")
