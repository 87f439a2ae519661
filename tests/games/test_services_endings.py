"""Draw offers and answers, resignation, draw claims, abandonment and the purge."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from accounts.models import GuestIdentity
from games import errors, services
from games.models import Challenge, Game, Move, Tournament, TournamentGroup
from tests.games.knight_walks import knight_walk
from tests.games.tournaments import end_game, game_between, join_all, make_event

KNIGHT_DANCE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def state(game: Game) -> tuple:
    game.refresh_from_db()
    return (
        game.status,
        game.result,
        game.termination,
        game.draw_offer_by,
        game.ended_by,
        game.version,
    )


# --------------------------------------------------------------------------- draw offers


def test_offer_draw_sets_the_offerers_flag(game, alice):
    version = game.version
    services.offer_draw(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert game.draw_offer_by == "white"
    assert game.version == version + 1


def test_offer_draw_out_of_turn_is_allowed(game, bob):
    services.offer_draw(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert game.draw_offer_by == "black"


def test_second_draw_offer_is_refused(game, alice, bob):
    services.offer_draw(game_id=game.pk, player=alice)
    before = state(game)
    for player in (alice, bob):
        with pytest.raises(errors.DrawOfferPending):
            services.offer_draw(game_id=game.pk, player=player)
    assert state(game) == before


def test_offerer_cannot_move_while_the_offer_is_pending(game, alice):
    services.offer_draw(game_id=game.pk, player=alice)
    with pytest.raises(errors.DrawOfferPending):
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert not Move.objects.exists()


def test_opponent_must_answer_the_offer_before_moving(game, play, bob):
    game = play(game, "e4")
    services.offer_draw(game_id=game.pk, player=game.white)
    with pytest.raises(errors.DrawOfferPending):
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
    assert Move.objects.count() == 1


def test_accepting_the_offer_draws_the_game(game, alice, bob):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=True)
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", "1/2-1/2", "agreement")
    # The offer is answered: none is pending; black's acceptance ended the game.
    assert (game.draw_offer_by, game.ended_by) == ("", "black")


def test_declining_the_offer_clears_it_and_play_goes_on(game, alice, bob):
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    game.refresh_from_db()
    assert game.status == "active"
    assert (game.draw_offer_by, game.ended_by) == ("", "")
    services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")


def test_a_declined_offer_is_made_again_only_after_a_move_of_ones_own(game, play, alice, bob):
    # Offered on one's turn, the offer stops one's clock while the opponent answers:
    # offering again and again would buy time.
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    with pytest.raises(errors.DrawOfferTooSoon):
        services.offer_draw(game_id=game.pk, player=alice)
    assert state(game)[3] == ""
    # bob has an offer of his own, once, until he moves.
    services.offer_draw(game_id=game.pk, player=bob)
    services.answer_draw(game_id=game.pk, player=alice, accept=False)
    with pytest.raises(errors.DrawOfferTooSoon):
        services.offer_draw(game_id=game.pk, player=bob)
    play(game, "e4")
    services.offer_draw(game_id=game.pk, player=alice)
    assert state(game)[3] == "white"


def test_a_draw_offered_with_ones_move_counts_for_that_move(game, play, alice, bob):
    play(game, "e4")
    # White offers on black's turn, after the move: the next offer waits for the next move.
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    play(game, "e5")
    with pytest.raises(errors.DrawOfferTooSoon):
        services.offer_draw(game_id=game.pk, player=alice)
    play(game, "Nf3")
    services.offer_draw(game_id=game.pk, player=alice)


def test_answering_without_an_offer_is_refused(game, bob):
    before = state(game)
    with pytest.raises(errors.NoDrawOffer):
        services.answer_draw(game_id=game.pk, player=bob, accept=True)
    assert state(game) == before


def test_offerer_cannot_answer_their_own_offer(game, alice):
    services.offer_draw(game_id=game.pk, player=alice)
    before = state(game)
    with pytest.raises(errors.NoDrawOffer):
        services.answer_draw(game_id=game.pk, player=alice, accept=True)
    assert state(game) == before


def test_draw_offer_by_someone_who_does_not_play_is_refused(game, carol):
    with pytest.raises(errors.NotAPlayer):
        services.offer_draw(game_id=game.pk, player=carol)
    with pytest.raises(errors.NotAPlayer):
        services.answer_draw(game_id=game.pk, player=carol, accept=True)


def test_draw_offer_in_an_unknown_game_is_refused(alice):
    with pytest.raises(errors.GameNotFound):
        services.offer_draw(game_id=999, player=alice)


def test_draw_offer_in_a_finished_game_is_refused(game, alice, bob):
    services.resign(game_id=game.pk, player=bob)
    before = state(game)
    with pytest.raises(errors.GameFinished):
        services.offer_draw(game_id=game.pk, player=alice)
    with pytest.raises(errors.GameFinished):
        services.answer_draw(game_id=game.pk, player=alice, accept=True)
    assert state(game) == before


# --------------------------------------------------------------------------- resignation


@pytest.mark.parametrize(("resigner", "result"), [("alice", "0-1"), ("bob", "1-0")])
def test_resigning_gives_the_opponent_the_win(game, resigner, result):
    player = game.white if resigner == "alice" else game.black
    services.resign(game_id=game.pk, player=player)
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", result, "resignation")
    assert game.ended_by == ("white" if resigner == "alice" else "black")


def test_resigning_out_of_turn_is_allowed(game, bob):
    services.resign(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert game.result == "1-0"


def test_resigning_a_finished_game_is_refused(game, alice, bob):
    services.resign(game_id=game.pk, player=alice)
    before = state(game)
    with pytest.raises(errors.GameFinished):
        services.resign(game_id=game.pk, player=bob)
    assert state(game) == before


def test_resigning_someone_elses_game_is_refused(game, carol):
    before = state(game)
    with pytest.raises(errors.NotAPlayer):
        services.resign(game_id=game.pk, player=carol)
    assert state(game) == before


def test_resigning_an_unknown_game_is_refused(alice):
    with pytest.raises(errors.GameNotFound):
        services.resign(game_id=999, player=alice)


# --------------------------------------------------------------------------- claims


def test_threefold_repetition_can_be_claimed(game, play, alice):
    game = play(game, *(KNIGHT_DANCE * 2))
    services.claim_draw(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == (
        "finished",
        "1/2-1/2",
        "threefold_repetition",
    )


def test_either_player_may_claim_whoever_is_to_move(game, play, bob):
    game = play(game, *(KNIGHT_DANCE * 2))
    assert game.colour_to_move == "white"
    services.claim_draw(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert game.termination == "threefold_repetition"


def test_fifty_move_rule_can_be_claimed(game, play, alice):
    game = play(game, "e4", "e5", *knight_walk(["e4", "e5"], 100))
    assert game.status == "active"
    services.claim_draw(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert game.termination == "fifty_moves"


def test_claim_with_nothing_to_claim_is_refused(game, play, alice):
    game = play(game, *KNIGHT_DANCE)
    before = state(game)
    with pytest.raises(errors.NothingToClaim):
        services.claim_draw(game_id=game.pk, player=alice)
    assert state(game) == before


def test_claim_in_a_finished_game_is_refused(game, play, alice, bob):
    game = play(game, *(KNIGHT_DANCE * 2))
    services.resign(game_id=game.pk, player=bob)
    before = state(game)
    with pytest.raises(errors.GameFinished):
        services.claim_draw(game_id=game.pk, player=alice)
    assert state(game) == before


def test_claim_by_someone_who_does_not_play_is_refused(game, play, carol):
    game = play(game, *(KNIGHT_DANCE * 2))
    with pytest.raises(errors.NotAPlayer):
        services.claim_draw(game_id=game.pk, player=carol)
    game.refresh_from_db()
    assert game.status == "active"


def test_claim_in_an_unknown_game_is_refused(alice):
    with pytest.raises(errors.GameNotFound):
        services.claim_draw(game_id=999, player=alice)


# --------------------------------------------------------------------------- abandonment


def test_abandoning_ends_every_active_game_as_a_loss(alice, bob, carol, start_game, play):
    as_white = play(start_game(alice, bob), "e4", "e5")
    as_black = play(start_game(carol, alice), "d4", "d5")
    ended = services.abandon_games(player=alice)
    assert {g.pk for g in ended} == {as_white.pk, as_black.pk}
    as_white.refresh_from_db()
    as_black.refresh_from_db()
    assert (as_white.result, as_white.termination) == ("0-1", "abandonment")
    assert (as_black.result, as_black.termination) == ("1-0", "abandonment")


BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_leaving_a_game_begun_with_black_to_move_after_black_s_move_loses_it(
    alice, bob, play
):
    """Black plays the odd half-moves here: having moved once, bob leaves a game he
    loses, not one aborted as if he had not moved."""
    game = services.start_gateway_game(white=alice, black=bob, initial_fen=BLACK_TO_MOVE)
    play(game, "e5")
    services.abandon_games(player=bob)
    assert state(game)[:3] == ("finished", "1-0", "abandonment")


def test_leaving_a_game_begun_with_black_to_move_before_white_s_move_aborts_it(
    alice, bob, play
):
    game = services.start_gateway_game(white=alice, black=bob, initial_fen=BLACK_TO_MOVE)
    play(game, "e5")  # black's move, none of white's yet
    services.abandon_games(player=alice)
    assert state(game)[:3] == ("finished", "*", "aborted")


def test_abandoning_leaves_finished_games_alone(game, alice, bob):
    services.resign(game_id=game.pk, player=bob)
    assert services.abandon_games(player=alice) == []
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1-0", "resignation")


def test_abandoning_withdraws_pending_challenges_both_ways(alice, bob, carol):
    sent = services.challenge(challenger=alice, challenged=bob)
    received = services.challenge(challenger=carol, challenged=alice)
    services.abandon_games(player=alice)
    assert set(
        Challenge.objects.filter(pk__in=[sent.pk, received.pk]).values_list("status", flat=True)
    ) == {"withdrawn"}


# --------------------------------------------------------------------------- purge


def _finished(start_game, white, black, days_ago: float) -> Game:
    game = start_game(white, black)
    services.resign(game_id=game.pk, player=black)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - dt.timedelta(days=days_ago))
    return game


def test_purge_deletes_old_finished_games_with_their_moves(alice, bob, carol, start_game, play):
    old = play(start_game(alice, bob), "e4", "e5")
    services.resign(game_id=old.pk, player=bob)
    Game.objects.filter(pk=old.pk).update(finished_at=timezone.now() - dt.timedelta(days=10))
    recent = _finished(start_game, alice, carol, days_ago=1)
    assert services.delete_finished_games(older_than_days=5) == 1
    assert list(Game.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not Move.objects.filter(game_id=old.pk).exists()


def test_purge_keeps_an_events_finished_games_while_it_runs_and_after_it_is_over(
    make_player, alice, bob, start_game
):
    # Three players, one game per pair: the event runs until its third game ends.
    players = [make_player(name) for name in ("p01", "p02", "p03")]
    event = make_event(min_players=3, max_players=3)
    join_all(event, players)
    group = TournamentGroup.objects.get(tournament=event)
    first, second, third = (
        game_between(group, a, b)
        for a, b in ((players[0], players[1]), (players[0], players[2]),
                     (players[1], players[2]))
    )
    end_game(first, 1)
    end_game(second, 0)
    ordinary = _finished(start_game, alice, bob, days_ago=10)
    long_ago = timezone.now() - dt.timedelta(days=10)
    Game.objects.filter(pk__in=(first.pk, second.pk)).update(finished_at=long_ago)
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING

    assert services.delete_finished_games(older_than_days=5) == 1
    assert not Game.objects.filter(pk=ordinary.pk).exists()
    assert set(Game.objects.filter(tournament=event).values_list("pk", flat=True)) == {
        first.pk, second.pk, third.pk
    }

    end_game(third, 0.5)
    Game.objects.filter(pk=third.pk).update(finished_at=long_ago)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert services.delete_finished_games(older_than_days=5) == 0
    assert Game.objects.filter(tournament=event).count() == 3


def test_purge_never_deletes_active_games(game):
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - dt.timedelta(days=999))
    assert services.delete_finished_games(older_than_days=0) == 0
    assert Game.objects.filter(pk=game.pk).exists()


def test_deleting_one_finished_game_takes_its_moves_and_keeps_its_challenge(
    alice, bob, start_game, play
):
    game = play(start_game(alice, bob), "e4", "e5")
    services.resign(game_id=game.pk, player=bob)
    services.delete_game(game_id=game.pk)
    assert not Game.objects.filter(pk=game.pk).exists()
    assert not Move.objects.filter(game_id=game.pk).exists()
    # The challenge stays as the record of who invited whom, without its game.
    assert Challenge.objects.get(status="accepted").game_id is None


def test_deleting_a_game_in_progress_is_refused(game, play):
    play(game, "e4")
    with pytest.raises(errors.GameInProgress):
        services.delete_game(game_id=game.pk)
    assert Move.objects.filter(game_id=game.pk).count() == 1


def test_deleting_an_unknown_game_is_refused(db):
    with pytest.raises(errors.GameNotFound):
        services.delete_game(game_id=424242)


def test_purge_refuses_negative_days(alice, bob, start_game):
    _finished(start_game, alice, bob, days_ago=10)
    with pytest.raises(ValueError):
        services.delete_finished_games(older_than_days=-1)
    assert Game.objects.count() == 1


# --------------------------------------------------------------------------- gateway doors


@pytest.fixture
def guest(make_player):
    player = make_player("ana@chessirc")
    GuestIdentity.objects.create(player=player, gateway="chessirc", name="ana")
    return player


def test_one_draw_command_offers_when_to_move_and_accepts_when_offered(game, alice, bob, play):
    play(game, "e4")  # black to move
    what, after = services.offer_or_accept_draw(game_id=game.pk, player=bob)
    assert (what, after.draw_offer_by) == ("offered", "black")
    what, after = services.offer_or_accept_draw(game_id=game.pk, player=alice)
    assert (what, after.result, after.termination) == ("accepted", "1/2-1/2", "agreement")


def test_the_draw_command_of_the_player_not_to_move_without_an_offer_is_refused(game, bob):
    version = game.version
    with pytest.raises(errors.NoDrawOffer):
        services.offer_or_accept_draw(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert (game.version, game.draw_offer_by) == (version, "")


def test_a_move_without_a_number_is_the_next_one_and_a_repeat_is_not_played_twice(game, alice):
    after = services.make_move(game_id=game.pk, player=alice, move_number=None, move="e4")
    assert after.next_move_number == 2
    with pytest.raises(errors.NotYourTurn):
        services.make_move(game_id=game.pk, player=alice, move_number=None, move="e4")
    assert list(Move.objects.filter(game=game).values_list("san", flat=True)) == ["e4"]


def test_a_closed_gateway_session_ends_the_game_of_the_guest_it_waits_for(alice, guest, play):
    game = services.start_gateway_game(white=alice, black=guest)
    play(game, "e4", "e5", "Nf3")  # the guest to move, having moved
    ended = services.leave_gateway_game(game_id=game.pk)
    assert ended is not None
    assert state(game)[:3] == ("finished", "1-0", "abandonment")
    assert services.leave_gateway_game(game_id=game.pk) is None  # already over


def test_a_guest_leaving_before_their_first_move_aborts_the_game(alice, guest, play):
    game = services.start_gateway_game(white=alice, black=guest)
    play(game, "e4")
    assert services.leave_gateway_game(game_id=game.pk, player=guest) is not None
    assert state(game)[:3] == ("finished", "*", "aborted")


def test_a_registered_player_keeps_a_game_whose_gateway_session_closed(alice, carol, guest):
    game = services.start_gateway_game(white=alice, black=guest)  # alice to move
    version = game.version
    assert services.leave_gateway_game(game_id=game.pk) is None
    assert services.leave_gateway_game(game_id=game.pk, player=alice) is None
    # Someone not in the game changes nothing either.
    assert services.leave_gateway_game(game_id=game.pk, player=carol) is None
    assert state(game)[0] == "active" and state(game)[-1] == version


def test_the_draw_command_refuses_a_stranger_and_a_finished_game(game, alice, bob, carol):
    with pytest.raises(errors.NotAPlayer):
        services.offer_or_accept_draw(game_id=game.pk, player=carol)
    services.resign(game_id=game.pk, player=bob)
    before = state(game)
    with pytest.raises(errors.GameFinished):
        services.offer_or_accept_draw(game_id=game.pk, player=alice)
    assert state(game) == before


@pytest.mark.parametrize("who", ["to move", "not to move"])
def test_the_draw_command_on_a_clock_run_out_ends_the_game_on_time(alice, bob, who):
    start = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        services.make_move(game_id=game.pk, player=bob, move_number=2, move="e5")
        clock.move_to(start + dt.timedelta(days=2))  # alice's day is long gone
        with pytest.raises(errors.GameFinished):
            services.offer_or_accept_draw(
                game_id=game.pk, player=alice if who == "to move" else bob
            )
    # Ended on time, in its own transaction, whatever the refused command was.
    assert state(game)[:3] == ("finished", "0-1", "timeout")


def test_a_closed_guest_session_after_the_clock_ran_out_ends_the_game_on_time(
    alice, guest
):
    start = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = services.start_gateway_game(white=alice, black=guest, days_per_move=1)
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
        services.make_move(game_id=game.pk, player=guest, move_number=2, move="e5")
        clock.move_to(start + dt.timedelta(days=2))  # alice, registered, ran out
        ended = services.leave_gateway_game(game_id=game.pk, player=guest)
    assert ended is not None
    # The guest who left did not lose: alice's time had run out first.
    assert state(game)[:3] == ("finished", "0-1", "timeout")
