"""Reads: players by name, games for a player, moves and challenges."""

from __future__ import annotations

import copy
import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from games import errors, rules, selectors, services
from games.models import Game
from tests.conftest import PASSWORD


def test_active_player_is_found_by_name(alice):
    assert account_selectors.active_player("alice") == alice


def test_unknown_player_name_is_refused(db):
    with pytest.raises(account_errors.UserNotFound):
        account_selectors.active_player("nobody")


def test_inactive_player_is_not_found(alice):
    account_services.unsubscribe(player=alice, password=PASSWORD)
    with pytest.raises(account_errors.UserNotFound):
        account_selectors.active_player("alice")


def test_game_for_a_player_who_does_not_play_it_is_not_found(game, carol):
    with pytest.raises(errors.GameNotFound):
        selectors.game_for_player(game.pk, carol)


def test_unknown_game_is_not_found(db):
    with pytest.raises(errors.GameNotFound):
        selectors.game(999)


def test_games_of_a_player_come_most_recent_first(alice, bob, carol, start_game, play):
    first = start_game(alice, bob)
    second = start_game(carol, alice)
    play(first, "e4")
    assert list(selectors.games_of(alice)) == [first, second]
    assert list(selectors.games_of(bob)) == [first]


def test_games_of_can_be_filtered_by_status(alice, bob, carol, start_game):
    active = start_game(alice, bob)
    finished = start_game(alice, carol)
    services.resign(game_id=finished.pk, player=carol)
    assert list(selectors.games_of(alice, status=Game.Status.ACTIVE)) == [active]


def test_finished_games_come_by_when_they_finished(
    alice, bob, carol, make_player, start_game, play
):
    dave = make_player("dave")
    first, second, third = (start_game(alice, other) for other in (bob, carol, dave))
    start_game(make_player("erin"), alice)  # in progress: never listed
    now = timezone.now()
    for hours_ago, ended in ((3, second), (2, first), (1, third)):
        services.resign(game_id=ended.pk, player=alice)
        Game.objects.filter(pk=ended.pk).update(finished_at=now - dt.timedelta(hours=hours_ago))
    # A later change to a finished game (none today, but updated_at may move) does not
    # reorder the list: it follows finished_at.
    Game.objects.filter(pk=second.pk).update(updated_at=timezone.now() + dt.timedelta(days=1))
    assert list(selectors.finished_games_of(alice)) == [third, first, second]


def test_games_changed_since_leaves_out_older_changes(alice, bob, carol, start_game, play):
    old = start_game(alice, bob)
    Game.objects.filter(pk=old.pk).update(updated_at=timezone.now() - dt.timedelta(days=1))
    since = timezone.now() - dt.timedelta(hours=1)
    recent = start_game(alice, carol)
    assert list(selectors.games_changed_since(alice, since)) == [recent]


def test_moves_after_a_number(game, play):
    play(game, "e4", "e5", "Nf3")
    assert [m.san for m in selectors.moves(game.pk, after=1)] == ["e5", "Nf3"]
    assert list(selectors.moves(game.pk, after=3)) == []


def test_pending_challenges_to_and_from_a_player(alice, bob, carol):
    to_bob = services.challenge(challenger=alice, challenged=bob)
    from_bob = services.challenge(challenger=bob, challenged=carol)
    assert list(selectors.pending_challenges_to(bob)) == [to_bob]
    assert list(selectors.pending_challenges_from(bob)) == [from_bob]


def test_pending_challenge_by_challenger_name(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    assert selectors.pending_challenge(challenger_name="alice", challenged=bob) == made


def test_pending_challenge_from_someone_who_made_none_is_refused(alice, bob):
    with pytest.raises(errors.ChallengeNotFound):
        selectors.pending_challenge(challenger_name="bob", challenged=alice)


def _joined(player, when: dt.datetime) -> None:
    type(player).objects.filter(pk=player.pk).update(date_joined=when)


def test_players_changed_since_lists_who_joined_later(alice, bob, carol):
    since = timezone.now() - dt.timedelta(days=1)
    _joined(bob, since - dt.timedelta(days=5))
    names = [p.username for p in account_selectors.players_changed_since(since, exclude=alice)]
    assert names == ["carol"]


def test_players_changed_since_lists_a_reopened_account_but_not_a_closed_one(alice, bob, carol):
    since = timezone.now() - dt.timedelta(days=1)
    for player in (bob, carol):
        _joined(player, since - dt.timedelta(days=5))
    account_services.revoke_access(player=bob)
    account_services.revoke_access(player=carol)
    account_services.restore_access(player=bob)
    names = [p.username for p in account_selectors.players_changed_since(since, exclude=alice)]
    assert names == ["bob"]


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="reads SQLite's query plan; DATABASE_URL is not SQLite"
)
@pytest.mark.parametrize("status", ["active", "finished"])
def test_a_players_games_by_status_are_read_through_the_per_player_indexes(alice, status):
    sql, params = selectors.games_of(alice, status=status).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = " | ".join(row[-1] for row in cursor.fetchall())
    # Not a walk over every game with that status, which grows with the whole database.
    assert "white_id=? AND status=?" in plan and "black_id=? AND status=?" in plan, plan


def test_the_repetition_window_is_the_one_of_the_position_the_game_object_holds(game, play):
    game = play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    as_then = copy.copy(game)
    # Later moves committed meanwhile (a reply to the event being built for as_then).
    play(game, "Ng8", "e4")
    assert selectors.repetition_window(as_then) == (
        rules.STARTING_FEN, ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
    )
