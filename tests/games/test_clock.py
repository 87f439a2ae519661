"""Correspondence clocks: days per move, deadlines, timeouts and aborts, on a fake clock."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services as account_services
from games import clock, errors, selectors, services
from games.models import Challenge, Game, Move
from ranking.models import PlayerRecord
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


@pytest.fixture
def traveller():
    """The fake clock, started at START; ``.move_to(moment)`` travels."""
    with time_machine.travel(START, tick=False) as frozen:
        yield frozen


@pytest.fixture
def timed_game(alice, bob, traveller):
    """alice (white) against bob, 3 days per move, started at START."""

    def start(days: int | None = 3, white=alice, black=bob) -> Game:
        made = services.challenge(challenger=black, challenged=white, days_per_move=days)
        return services.accept_challenge(challenge_id=made.pk, player=white, colour="white")

    return start


def record(player) -> tuple[int, int, int]:
    r = PlayerRecord.objects.get(player=player)
    return (r.wins, r.losses, r.draws)


# --------------------------------------------------------------------------- time control


@pytest.mark.parametrize("days", clock.DAYS_PER_MOVE)
def test_a_challenge_carries_its_days_per_move(alice, bob, days):
    made = services.challenge(challenger=alice, challenged=bob, days_per_move=days)
    made.refresh_from_db()
    assert made.days_per_move == days


def test_a_challenge_without_a_time_control_has_none(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    assert made.days_per_move is None


@pytest.mark.parametrize("days", [0, 4, 15, -3, 10**9, "3", 3.0, True, [3], {"days": 3}])
def test_a_time_control_not_offered_is_refused_and_nothing_is_made(alice, bob, days):
    with pytest.raises(errors.InvalidTimeControl):
        services.challenge(challenger=alice, challenged=bob, days_per_move=days)
    assert not Challenge.objects.exists()


def test_the_database_refuses_days_not_offered(game):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(days_per_move=4)


def test_the_game_starts_with_the_challenge_days_and_white_s_deadline(timed_game):
    game = timed_game(3)
    assert game.days_per_move == 3
    assert game.deadline == START + 3 * DAY
    assert game.colour_on_clock == "white"


def test_a_game_without_a_time_control_has_no_deadline_and_never_runs_out(
    timed_game, traveller
):
    game = timed_game(None)
    assert game.deadline is None
    traveller.move_to(START + 400 * DAY)
    assert services.expire_due_games() == 0
    assert selectors.game(game.pk).is_active


def test_each_move_gives_the_opponent_the_full_days_from_that_move(timed_game, play, traveller):
    game = timed_game(2)
    traveller.move_to(START + dt.timedelta(hours=30))
    game = play(game, "e4")
    assert game.deadline == START + dt.timedelta(hours=30) + 2 * DAY
    assert game.colour_on_clock == "black"


def test_a_day_is_twenty_four_hours_across_a_change_of_summer_time(alice, bob):
    # Spain moves its clocks forward on 29 March 2026 at 02:00: 72 real hours after
    # noon on the 28th is 13:00 on the 31st on a Madrid wall clock.
    madrid = zoneinfo.ZoneInfo("Europe/Madrid")
    started = dt.datetime(2026, 3, 28, 12, 0, tzinfo=madrid)
    with time_machine.travel(started, tick=False):
        made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
        game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    game.refresh_from_db()
    assert game.deadline.utcoffset() == dt.timedelta(0)
    assert game.deadline - started == dt.timedelta(hours=72)
    assert game.deadline.astimezone(madrid) == dt.datetime(2026, 3, 31, 13, 0, tzinfo=madrid)


# --------------------------------------------------------------------------- timeouts


def test_running_out_loses_the_game_and_counts_in_the_ranking(
    timed_game, play, traveller, alice, bob
):
    game = play(timed_game(1), "e4", "e5")
    deadline = game.deadline
    traveller.move_to(deadline + dt.timedelta(seconds=1))
    assert services.expire_due_games() == 1
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", "0-1", "timeout")
    assert game.finished_at == deadline
    assert game.deadline is None
    assert (record(alice), record(bob)) == ((0, 1, 0), (1, 0, 0))


def test_nothing_ends_a_second_before_the_deadline(timed_game, play, traveller):
    game = play(timed_game(1), "e4", "e5")
    traveller.move_to(game.deadline - dt.timedelta(seconds=1))
    assert services.expire_due_games() == 0
    game.refresh_from_db()
    assert game.is_active


def test_running_out_against_a_bare_king_is_a_draw(timed_game, play, traveller, alice, bob):
    game = play(timed_game(1), "e4", "e5")
    # Test set-up only: a position where black (not on the clock) has a lone king.
    Game.objects.filter(pk=game.pk).update(fen="4k3/8/8/8/8/8/4P3/4K2R w K - 0 30")
    traveller.move_to(game.deadline + DAY)
    services.expire_due_games()
    game.refresh_from_db()
    assert (game.result, game.termination) == ("1/2-1/2", "timeout")
    assert (record(alice), record(bob)) == ((0, 0, 1), (0, 0, 1))


@pytest.mark.parametrize(
    ("fen", "result"),
    [
        # King and knight cannot mate a lone king: a draw.
        ("4k1n1/8/8/8/8/8/8/4K3 w - - 0 30", "1/2-1/2"),
        # Against a rook and a pawn a knight can mate (with their help): a loss (FIDE 6.9).
        ("4k1n1/8/8/8/8/8/4P3/4K2R w K - 0 30", "0-1"),
    ],
)
def test_a_lone_minor_piece_draws_only_where_it_could_never_mate(
    timed_game, play, traveller, fen, result
):
    game = play(timed_game(1), "e4", "e5")
    Game.objects.filter(pk=game.pk).update(fen=fen)
    traveller.move_to(game.deadline + DAY)
    services.expire_due_games()
    game.refresh_from_db()
    assert game.result == result


@pytest.mark.parametrize("moves", [[], ["e4"]])
def test_running_out_before_both_have_moved_aborts_the_game_unrated(
    timed_game, play, traveller, alice, bob, moves
):
    game = play(timed_game(1), *moves)
    traveller.move_to(game.deadline + dt.timedelta(minutes=1))
    assert services.expire_due_games() == 1
    game.refresh_from_db()
    assert (game.status, game.result, game.termination) == ("finished", "*", "aborted")
    assert record(alice) == record(bob) == (0, 0, 0)
    assert PlayerRecord.objects.get(player=alice).rating == PlayerRecord.objects.get(
        player=bob
    ).rating


def test_expiring_twice_ends_the_game_once(timed_game, play, traveller, alice, bob):
    game = play(timed_game(1), "e4", "e5")
    traveller.move_to(game.deadline + DAY)
    assert services.expire_game(game_id=game.pk) is not None
    assert services.expire_game(game_id=game.pk) is None
    assert services.expire_due_games() == 0
    assert (record(alice), record(bob)) == ((0, 1, 0), (1, 0, 0))


def test_a_game_that_ran_out_while_no_sweep_ran_reads_as_lost_on_time_and_stays_unwritten(
    timed_game, play, traveller
):
    game = play(timed_game(3), "e4", "e5")
    deadline = game.deadline
    traveller.move_to(deadline + 5 * DAY)
    read = selectors.game(game.pk)
    assert (read.status, read.result, read.termination) == ("finished", "0-1", "timeout")
    assert (read.finished_at, read.deadline) == (deadline, None)
    stored = Game.objects.get(pk=game.pk)
    assert (stored.status, stored.deadline, stored.version) == ("active", deadline, game.version)
    # The sweep writes the very ending the read showed.
    assert services.expire_due_games() == 1
    stored.refresh_from_db()
    assert (stored.status, stored.result, stored.termination, stored.finished_at) == (
        "finished", "0-1", "timeout", deadline
    )


def test_a_player_s_lists_show_their_games_that_ran_out_as_finished(
    timed_game, play, traveller, alice
):
    game = play(timed_game(3), "e4", "e5")
    traveller.move_to(game.deadline + DAY)
    assert [g.status for g in selectors.games_of(alice)] == ["finished"]
    assert list(selectors.games_of(alice, status="active")) == []
    assert [g.pk for g in selectors.finished_games_of(alice)] == [game.pk]
    assert list(selectors.games_waiting_for(alice)) == []
    assert Game.objects.get(pk=game.pk).status == "active"


@pytest.mark.parametrize(
    ("moves", "paused", "expected"),
    [
        (["e4", "e5"], False, ("finished", "0-1", "timeout")),
        (["e4"], False, ("finished", "*", "aborted")),
        ([], False, ("finished", "*", "aborted")),
        (["e4", "e5"], True, ("active", "*", "")),
    ],
    ids=["lost on time", "one move: aborted", "no move: aborted", "vacation: paused"],
)
def test_the_read_model_shows_what_the_sweep_then_writes(
    timed_game, play, traveller, moves, paused, expected
):
    game = play(timed_game(1), *moves) if moves else timed_game(1)
    if paused:
        Game.objects.filter(pk=game.pk).update(paused_at=game.deadline - DAY / 2)
    traveller.move_to(game.deadline + DAY)
    read = selectors.game(game.pk)
    assert (read.status, read.result, read.termination) == expected
    services.expire_due_games()
    stored = Game.objects.get(pk=game.pk)
    assert (stored.status, stored.result, stored.termination) == expected


def test_a_move_after_the_deadline_is_refused_and_the_game_ends_on_time(
    timed_game, play, traveller, alice
):
    game = play(timed_game(1), "e4", "e5")
    traveller.move_to(game.deadline)
    with pytest.raises(errors.GameFinished):
        services.make_move(game_id=game.pk, player=alice, move_number=3, move="Nf3")
    game.refresh_from_db()
    assert (game.result, game.termination) == ("0-1", "timeout")
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.parametrize(
    "action",
    [
        lambda g, w, b: services.resign(game_id=g.pk, player=w),
        lambda g, w, b: services.offer_draw(game_id=g.pk, player=b),
    ],
    ids=["resign", "offer_draw"],
)
def test_no_action_counts_once_the_time_is_up(timed_game, play, traveller, alice, bob, action):
    game = play(timed_game(1), "e4", "e5")
    traveller.move_to(game.deadline + dt.timedelta(seconds=5))
    with pytest.raises(errors.GameFinished):
        action(game, alice, bob)
    game.refresh_from_db()
    assert game.termination == "timeout"


def test_a_preview_once_the_time_is_up_is_refused_and_writes_nothing(
    timed_game, play, traveller, alice
):
    # A preview only reads: it sees the game over, as every read does; the sweep or the
    # next action ends it in the database.
    game = play(timed_game(1), "e4", "e5")
    traveller.move_to(game.deadline + dt.timedelta(seconds=5))
    with pytest.raises(errors.GameFinished):
        services.preview_move(game_id=game.pk, player=alice, move_number=3, move="d4")
    assert Game.objects.get(pk=game.pk).status == "active"


@pytest.mark.parametrize(
    ("query", "index"),
    [(0, "vacation_running"), (1, "game_deadline_running"), (2, "game_deadline_unwarned")],
    ids=["spent vacations", "games run out", "24-hour warnings"],
)
def test_the_sweep_is_three_indexed_queries_when_nothing_is_due(timed_game, play, query, index):
    play(timed_game(3), "e4", "e5")
    with CaptureQueriesContext(connection) as queries:
        assert services.expire_due_games() == 0
    assert len(queries) == 3
    sql = queries[query]["sql"]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A handful of rows: the planner would rightly scan them; ask whether the
            # index serves the query at all.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + sql)
        else:
            cursor.execute("EXPLAIN QUERY PLAN " + sql)
        plan = cursor.fetchall()
    assert any(index in str(row) for row in plan), plan


# --------------------------------------------------------------------------- draw offers


def test_an_offer_by_the_player_to_move_stops_their_clock_and_starts_the_opponent_s(
    timed_game, play, traveller, alice, bob
):
    game = play(timed_game(3), "e4", "e5")  # alice to move, deadline START + 3 days
    traveller.move_to(START + DAY)
    game = services.offer_draw(game_id=game.pk, player=alice)
    assert game.colour_on_clock == "black"
    assert game.deadline == START + 4 * DAY
    assert game.time_left == 2 * DAY
    traveller.move_to(START + 3 * DAY)
    game = services.answer_draw(game_id=game.pk, player=bob, accept=False)
    # alice gets back the two days she had when she offered.
    assert game.deadline == START + 5 * DAY
    assert game.time_left is None


def test_a_move_withdrawing_the_movers_offer_leaves_no_time_kept_for_later(
    timed_game, play, traveller, alice, bob
):
    game = play(timed_game(3), "e4", "e5")
    traveller.move_to(START + DAY)
    services.offer_draw(game_id=game.pk, player=alice)  # her two days are kept
    # chessirc's rule: the offerer's move withdraws the offer.
    game = services.make_move(
        game_id=game.pk, player=alice, move_number=3, move="Nf3", withdraws_offer=True
    )
    assert game.time_left is None
    game.refresh_from_db()
    assert game.time_left is None
    # bob offers, alice declines: the clock is bob's, from his own move's deadline.
    traveller.move_to(START + 2 * DAY)
    services.offer_draw(game_id=game.pk, player=bob)
    game = services.answer_draw(game_id=game.pk, player=alice, accept=False)
    assert game.deadline == START + 4 * DAY


def test_an_offer_to_the_player_to_move_leaves_their_clock_running(
    timed_game, play, traveller, bob
):
    game = play(timed_game(3), "e4", "e5")
    deadline = game.deadline
    traveller.move_to(START + DAY)
    game = services.offer_draw(game_id=game.pk, player=bob)
    assert (game.colour_on_clock, game.deadline, game.time_left) == ("white", deadline, None)


def test_an_offer_never_answered_runs_out_for_the_player_who_owes_the_answer(
    timed_game, play, traveller, alice
):
    game = play(timed_game(1), "e4", "e5")
    game = services.offer_draw(game_id=game.pk, player=alice)
    traveller.move_to(game.deadline + DAY)
    services.expire_due_games()
    game.refresh_from_db()
    assert (game.result, game.termination, game.draw_offer_by) == ("1-0", "timeout", "")


# --------------------------------------------------------------------------- leaving


def test_leaving_before_one_s_first_move_aborts_the_game(timed_game, play, alice, bob):
    game = play(timed_game(3), "e4")  # alice moved, bob has not
    account_services.unsubscribe(player=bob, password=PASSWORD)
    game.refresh_from_db()
    assert (game.result, game.termination, game.ended_by) == ("*", "aborted", "black")
    assert record(alice) == record(bob) == (0, 0, 0)


def test_leaving_after_one_s_first_move_loses_even_if_the_opponent_has_not_moved(
    timed_game, play, alice, bob
):
    game = play(timed_game(3), "e4")
    account_services.unsubscribe(player=alice, password=PASSWORD)
    game.refresh_from_db()
    assert (game.result, game.termination) == ("0-1", "abandonment")


# --------------------------------------------------------------------------- demo travel


def test_demo_travel_moves_deadlines_and_the_sweep_then_ends_the_game(timed_game, play):
    game = play(timed_game(3), "e4", "e5")
    version = game.version
    assert services.advance_clocks(by=3 * DAY, game_id=game.pk) == 1
    game.refresh_from_db()
    assert game.deadline == START
    assert game.version == version + 1
    assert services.expire_due_games() == 1


def test_demo_travel_refuses_to_go_backwards(timed_game):
    with pytest.raises(ValueError):
        services.advance_clocks(by=-DAY)
