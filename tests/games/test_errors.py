"""Domain error codes are part of the front doors' contract: they must not drift.

The web maps them to HTTP statuses and WebSocket error frames, the ESPOL gateway to its
response codes, so a renamed code would break clients silently.
"""

from __future__ import annotations

import pytest

from accounts import errors as account_errors
from ajedrez.core.errors import DomainError
from games import errors
from legacy_tcp import guests

STABLE_CODES = {
    account_errors.UserNotFound: "user_not_found",
    errors.GameNotFound: "game_not_found",
    errors.NotAPlayer: "not_a_player",
    errors.NotYourTurn: "not_your_turn",
    errors.InvalidMove: "invalid_move",
    errors.IllegalMove: "illegal_move",
    errors.InvalidPosition: "invalid_position",
    errors.ChatNotAllowed: "chat_not_allowed",
    errors.ChatMessageInvalid: "chat_message_invalid",
    errors.ChatRateLimited: "chat_rate_limited",
    errors.ChatMuted: "chat_muted",
    errors.WrongMoveNumber: "wrong_move_number",
    errors.GameFinished: "game_finished",
    errors.GameInProgress: "game_in_progress",
    errors.DrawOfferPending: "draw_offer_pending",
    errors.NoDrawOffer: "no_draw_offer",
    errors.DrawOfferTooSoon: "draw_offer_too_soon",
    errors.NothingToClaim: "nothing_to_claim",
    errors.ChallengeExists: "challenge_exists",
    errors.OpponentChallengedFirst: "opponent_challenged_first",
    errors.ActiveGameExists: "active_game_exists",
    errors.InvalidGamesPerPair: "invalid_games_per_pair",
    errors.SelfChallenge: "self_challenge",
    errors.ChallengeNotFound: "challenge_not_found",
    errors.ChallengeRateLimited: "challenge_rate_limited",
    errors.InvalidColour: "invalid_colour",
    errors.ColourChosenByChallenger: "colour_chosen_by_challenger",
    errors.InvalidDeclineReason: "invalid_decline_reason",
    errors.NotAbortable: "not_abortable",
    errors.NoVictoryToClaim: "no_victory_to_claim",
    errors.BotUpgradeRefused: "bot_upgrade_refused",
    errors.InvalidTimeControl: "invalid_time_control",
    errors.AlreadyOnVacation: "already_on_vacation",
    errors.NotOnVacation: "not_on_vacation",
    errors.NoVacationLeft: "no_vacation_left",
    errors.ConditionalLinesInvalid: "conditional_invalid",
    errors.ConditionalOnYourTurn: "conditional_on_your_turn",
    errors.TournamentNotFound: "tournament_not_found",
    errors.RegistrationClosed: "registration_closed",
    errors.TournamentFull: "tournament_full",
    errors.AlreadyRegistered: "already_registered",
    errors.NotRegistered: "not_registered",
    errors.RatingOutOfBounds: "rating_out_of_bounds",
    errors.TournamentNotRunning: "tournament_not_running",
    errors.InvalidTournament: "invalid_tournament",
    errors.EngineNotAllowed: "engine_not_allowed",
    errors.EngineUnavailable: "engine_unavailable",
    errors.AnalysisRateLimited: "analysis_rate_limited",
    errors.NoteInvalid: "note_invalid",
    errors.TournamentGameKept: "tournament_game_kept",
    errors.BotInTournament: "bot_in_tournament",
    errors.SeekNotFound: "seek_not_found",
    errors.SeekTaken: "seek_taken",
    errors.SeekCancelled: "seek_cancelled",
    errors.OwnSeek: "own_seek",
    errors.OutOfRatingRange: "out_of_rating_range",
    errors.InvalidRatingRange: "invalid_rating_range",
    errors.TooManySeeks: "too_many_seeks",
    errors.BotsCannotSeek: "bots_cannot_seek",
    errors.InvalidSeekName: "invalid_seek_name",
    errors.InvalidImport: "invalid_import",
    account_errors.SubscriptionRefused: "subscription_refused",
    account_errors.SubscriptionNotPending: "subscription_not_pending",
    account_errors.SubscriptionNotFound: "subscription_not_found",
    account_errors.WrongPassword: "wrong_password",
    account_errors.InvalidGuestName: "invalid_guest_name",
    account_errors.GuestsRateLimited: "guests_rate_limited",
    account_errors.NoSuchToken: "no_such_token",
    account_errors.UnknownScope: "unknown_scope",
    account_errors.TokenRefused: "token_refused",
    guests.GuestsNotAllowed: "guests_not_allowed",
    guests.NameReserved: "name_reserved",
    guests.LinkedAccountClosed: "linked_account_closed",
    guests.LinkKeyRequired: "link_key_required",
    guests.WrongLinkKey: "wrong_link_key",
    guests.NameNotLinked: "name_not_linked",
}


def _all_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_all_subclasses(sub)}
    return found


def test_every_domain_error_has_its_listed_stable_code():
    # A new error must be added here on purpose, with its code.
    assert _all_subclasses(DomainError) == set(STABLE_CODES)
    for error, code in STABLE_CODES.items():
        assert error.code == code


def test_no_two_errors_share_a_code():
    # Read from the classes themselves: a front door tells errors apart by code alone.
    codes = [error.code for error in _all_subclasses(DomainError)]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize("error", STABLE_CODES)
def test_each_error_says_its_code_and_a_message(error):
    needs = {errors.WrongMoveNumber: {"expected": 3}, errors.TooManySeeks: {"limit": 10}}
    raised = error(**needs.get(error, {}))
    described = raised.as_dict()
    assert described["code"] == STABLE_CODES[error]
    assert described["message"] and described["message"] == str(raised)


def test_a_stale_move_number_carries_the_expected_one():
    described = errors.WrongMoveNumber(expected=7).as_dict()
    assert described["expected"] == 7
    assert "7" in described["message"]
