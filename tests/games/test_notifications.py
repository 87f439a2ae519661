"""In-app notifications: what the services tell each player, once, after the commit."""

from __future__ import annotations

import datetime as dt
import io

import pytest
import time_machine
from django.db import transaction

from accounts.models import GuestIdentity
from games import notifications, services
from games.models import Notification, NotificationKind
from games.signals import notification_created

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def received():
    """The notifications the signal announced, in order."""
    got: list[Notification] = []

    def receiver(sender, notification, **kwargs):
        got.append(notification)

    notification_created.connect(receiver, dispatch_uid="test-received")
    yield got
    notification_created.disconnect(dispatch_uid="test-received")


def test_notify_saves_and_announces_after_the_commit(alice, bob, received, on_commit):
    with on_commit():
        made = notifications.notify(
            recipient=alice, kind=NotificationKind.DRAW_OFFERED, actor=bob, detail={"x": 1}
        )
        assert received == []
    assert made is not None and made.pk
    assert received == [made]
    assert made.read_at is None and made.detail == {"x": 1}


def test_a_rolled_back_notification_announces_nothing(alice, received, on_commit):
    with on_commit(), pytest.raises(RuntimeError), transaction.atomic():
        notifications.notify(recipient=alice, kind=NotificationKind.GAME_OVER)
        raise RuntimeError
    assert received == []
    assert not Notification.objects.exists()


def test_guests_are_not_notified(make_player, received):
    guest = make_player("ana@distribuido")
    GuestIdentity.objects.create(player=guest, gateway="distribuido", name="ana")
    assert notifications.notify(recipient=guest, kind=NotificationKind.GAME_OVER) is None
    assert not Notification.objects.exists()


def test_an_unknown_kind_is_refused(alice):
    with pytest.raises(ValueError):
        notifications.notify(recipient=alice, kind="birthday")


# --------------------------------------------------------------------------- each kind

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def of(player, kind=None) -> list[Notification]:
    found = Notification.objects.filter(recipient=player).order_by("pk")
    return list(found.filter(kind=kind) if kind else found)


def unread(player, kind=None) -> list[tuple[str, dict]]:
    return [(n.kind, n.detail) for n in of(player, kind) if n.read_at is None]


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as frozen:
        yield frozen


def test_a_challenge_tells_the_challenged_player_only(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob, days_per_move=3)
    [told] = of(bob)
    assert (told.kind, told.challenge, told.actor, told.game) == (
        "challenge_received",
        made,
        alice,
        None,
    )
    assert told.detail == {"days_per_move": 3}
    assert of(alice) == []


def test_an_accepted_challenge_tells_the_challenger_and_clears_the_received_one(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    game = services.accept_challenge(challenge_id=made.pk, player=bob, colour="white")
    [told] = of(alice)
    assert (told.kind, told.game, told.actor, told.detail) == (
        "challenge_accepted",
        game,
        bob,
        {"colour": "black"},
    )
    # bob answered it: his "challenge received" is no news any more.
    assert unread(bob) == []


def test_a_declined_challenge_tells_the_challenger(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.decline_challenge(challenge_id=made.pk, player=bob)
    assert [(n.kind, n.challenge_id, n.actor) for n in of(alice)] == [
        ("challenge_declined", made.pk, bob)
    ]
    assert unread(bob) == []


def test_a_withdrawn_challenge_leaves_nothing_unread(alice, bob):
    made = services.challenge(challenger=alice, challenged=bob)
    services.withdraw_challenge(challenge_id=made.pk, player=alice)
    assert unread(bob) == [] and of(alice) == []


def test_a_move_tells_the_opponent_with_its_san(game, alice, bob, play):
    play(game, "e4")
    assert unread(bob, "opponent_moved") == [
        ("opponent_moved", {"san": "e4", "number": 1, "conditional": False})
    ]
    assert of(bob, "opponent_moved")[0].actor == alice
    assert of(alice, "opponent_moved") == []


def test_moves_of_one_game_while_unread_are_one_notification(game, alice, bob, play, carol):
    play(game, "e4", "e5", "Nf3", "Nc6", "Bb5")
    [told] = of(bob, "opponent_moved")
    assert told.detail == {"san": "Bb5", "number": 5, "conditional": False, "count": 3}
    # Once read, the next move is news again: a new row.
    notifications.mark_read(bob.pk)
    play(game, "a6", "Ba4")
    assert [n.detail["san"] for n in of(bob, "opponent_moved")] == ["Bb5", "Ba4"]
    assert len(unread(bob, "opponent_moved")) == 1


def test_collapsing_is_per_game(alice, bob, carol, start_game, play):
    first, second = start_game(alice, bob), start_game(alice, carol)
    play(first, "e4")
    play(second, "d4")
    play(first, "e5", "Nf3")
    assert [n.game_id for n in of(bob, "opponent_moved")] == [first.pk]
    assert [n.game_id for n in of(carol, "opponent_moved")] == [second.pk]


def test_a_conditional_reply_tells_the_player_it_was_played_against(game, alice, bob, play):
    play(game, "e4")
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=2, lines=[["e5", "Nf3"]]
    )
    notifications.mark_read(alice.pk)
    play(game, "e5")  # bob's move; alice's Nf3 follows at once
    assert unread(bob, "opponent_moved") == [
        ("opponent_moved", {"san": "Nf3", "number": 3, "conditional": True, "count": 2})
    ]
    # alice is told of bob's move and of her reply played for her: it is not her move.
    assert unread(alice) == [
        ("opponent_moved", {"san": "e5", "number": 2, "conditional": False, "reply": "Nf3"})
    ]


def test_a_draw_offer_and_its_refusal(game, alice, bob, play):
    play(game, "e4", "e5")
    services.offer_draw(game_id=game.pk, player=alice)
    assert [(n.kind, n.actor) for n in of(bob, "draw_offered")] == [("draw_offered", alice)]
    services.answer_draw(game_id=game.pk, player=bob, accept=False)
    assert [(n.detail, n.actor) for n in of(alice, "draw_answered")] == [({"accepted": False}, bob)]


def game_over(player) -> list[tuple[str, str, bool]]:
    return [
        (n.detail["termination"], n.detail["result"], n.read_at is None)
        for n in of(player, "game_over")
    ]


def test_an_accepted_draw_is_the_game_over_for_both(game, alice, bob, play):
    play(game, "e4", "e5")
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=True)
    # The offerer hears the answer as the end of the game; bob, who accepted, has it
    # in his list already read.
    assert game_over(alice) == [("agreement", "1/2-1/2", True)]
    assert game_over(bob) == [("agreement", "1/2-1/2", False)]
    assert of(alice, "draw_answered") == []


def test_resigning_tells_both_the_winner_unread(game, alice, bob, play):
    play(game, "e4", "e5")
    services.resign(game_id=game.pk, player=bob)
    assert game_over(alice) == [("resignation", "1-0", True)]
    assert game_over(bob) == [("resignation", "1-0", False)]
    assert of(alice, "game_over")[0].actor == bob


def test_mate_tells_both_and_the_mated_player_is_not_told_of_the_move(game, alice, bob, play):
    play(game, "f3", "e5", "g4", "Qh4#")
    assert game_over(alice) == [("checkmate", "0-1", True)]
    assert game_over(bob) == [("checkmate", "0-1", False)]
    assert of(alice, "game_over")[0].detail["last_move"] == "Qh4#"
    assert [n.detail["san"] for n in of(alice, "opponent_moved")] == ["e5"]


def test_the_game_over_says_who_won_as_each_player_reads_it(game, alice, bob, play):
    from games.state import notification_text

    play(game, "f3", "e5", "g4", "Qh4#")
    number = game.public_id
    [lost] = of(alice, "game_over")
    [won] = of(bob, "game_over")
    assert notification_text(lost) == f"You lost {number} against bob (checkmate)."
    assert notification_text(won) == f"You won {number} against alice (checkmate)."


def test_a_draw_and_an_abort_read_as_such(game, alice, bob, play, make_player, start_game):
    from games.state import notification_text

    play(game, "e4", "e5")
    services.offer_draw(game_id=game.pk, player=alice)
    services.answer_draw(game_id=game.pk, player=bob, accept=True)
    [drawn] = of(alice, "game_over")
    assert notification_text(drawn) == f"{game.public_id} against bob was drawn (agreement)."
    carol = make_player("carol")
    left = start_game(alice, carol)
    services.abandon_games(player=carol)
    [aborted] = [n for n in of(alice, "game_over") if n.game_id == left.pk]
    assert notification_text(aborted).startswith(f"{left.public_id} against carol was aborted")


def test_a_conditional_reply_that_mates_is_news_to_its_owner(game, alice, bob, play):
    play(game, "f3", "e5")
    services.set_conditional_lines(
        game_id=game.pk, player=bob, move_number=3, lines=[["g4", "Qh4#"]]
    )
    play(game, "g4")
    assert game_over(bob) == [("checkmate", "0-1", True)]
    assert game_over(alice) == [("checkmate", "0-1", True)]


def test_a_claimed_draw_tells_both(game, alice, bob, play):
    play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    services.claim_draw(game_id=game.pk, player=alice)
    assert game_over(bob) == [("threefold_repetition", "1/2-1/2", True)]
    assert game_over(alice) == [("threefold_repetition", "1/2-1/2", False)]


def test_time_running_out_tells_both_unread(alice, bob, traveller, play):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    game = services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    play(game, "e4", "e5")
    traveller.move_to(START + 4 * DAY)
    assert services.expire_due_games() == 1
    assert game_over(alice) == [("timeout", "0-1", True)]
    assert game_over(bob) == [("timeout", "0-1", True)]


def test_an_abort_and_an_abandonment_tell_the_opponent(alice, bob, carol, start_game, play):
    start_game(alice, bob)  # aborted: alice leaves it before her first move
    abandoned = start_game(alice, carol)
    play(abandoned, "e4")
    services.abandon_games(player=alice)  # both of her games
    assert game_over(bob) == [("aborted", "*", True)]
    assert game_over(carol) == [("abandonment", "0-1", True)]
    assert game_over(alice) == []


def test_a_closed_account_s_opponents_are_told_and_the_account_is_not(game, alice, bob, play):
    from accounts import services as account_services

    play(game, "e4", "e5")
    account_services.revoke_access(player=alice, by=None)
    assert game_over(bob) == [("abandonment", "0-1", True)]
    assert game_over(alice) == []


# --------------------------------------------------------------------------- vacation


def test_going_on_vacation_tells_the_opponents_of_active_games(
    alice, bob, carol, make_player, start_game, traveller
):
    dave = make_player("dave")
    first, second, over = start_game(alice, bob), start_game(carol, alice), start_game(alice, dave)
    services.resign(game_id=over.pk, player=dave)
    services.start_vacation(player=alice)
    for opponent, game in ((bob, first), (carol, second)):
        [told] = of(opponent, "opponent_on_vacation")
        assert (told.game, told.actor) == (game, alice)
        assert told.detail["until"].startswith("2026-")
    assert of(dave, "opponent_on_vacation") == []


# --------------------------------------------------------------------------- low time


@pytest.fixture
def timed(alice, bob, traveller):
    """alice (white) against bob, 3 days per move, started at START."""
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    return services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")


def low_time(player) -> list[str]:
    return [n.detail["deadline"] for n in of(player, "low_time")]


def test_the_24_hour_warning_is_sent_once_per_deadline(timed, alice, bob, play, traveller):
    play(timed, "e4")  # bob's deadline: START + 3 days
    traveller.move_to(START + 2 * DAY - dt.timedelta(minutes=1))
    services.expire_due_games()
    assert low_time(bob) == []
    traveller.move_to(START + 2 * DAY)
    services.expire_due_games()
    services.expire_due_games()  # the sweep runs again a minute later, or in another process
    traveller.move_to(START + 2 * DAY + dt.timedelta(hours=5))
    services.expire_due_games()
    services.expire_due_games_of(bob)
    deadline = (START + 3 * DAY).isoformat()
    assert low_time(bob) == [deadline]
    assert low_time(alice) == []
    [warned] = of(bob, "low_time")
    assert (warned.game_id, warned.actor, warned.read_at) == (timed.pk, alice, None)
    # bob moves: alice's clock runs with a deadline of its own, warned about once again.
    play(timed, "e5")
    traveller.move_to(START + 4 * DAY + dt.timedelta(hours=6))
    services.expire_due_games()
    services.expire_due_games()
    assert low_time(alice) == [(START + 5 * DAY + dt.timedelta(hours=5)).isoformat()]
    assert low_time(bob) == [deadline]


def test_the_warning_waits_while_the_clock_is_paused(timed, alice, bob, play, traveller):
    services.start_vacation(player=alice)
    traveller.move_to(START + 2 * DAY + dt.timedelta(hours=1))
    services.expire_due_games()
    assert low_time(alice) == []
    services.end_vacation(player=alice)  # her clock resumes with its 3 days
    services.expire_due_games()
    assert low_time(alice) == []
    traveller.move_to(START + 4 * DAY + dt.timedelta(hours=2))
    services.expire_due_games()
    assert len(low_time(alice)) == 1


def test_a_warning_given_is_not_given_again_when_a_vacation_moves_the_deadline(
    timed, alice, traveller
):
    traveller.move_to(START + 2 * DAY + dt.timedelta(hours=1))
    services.expire_due_games()
    assert low_time(alice) == [(START + 3 * DAY).isoformat()]
    services.start_vacation(player=alice)
    traveller.move_to(START + 2 * DAY + dt.timedelta(hours=3))
    services.end_vacation(player=alice)  # the same 23 hours left, two hours later
    services.expire_due_games()
    services.expire_due_games_of(alice)
    assert low_time(alice) == [(START + 3 * DAY).isoformat()]


def test_a_read_of_the_player_s_games_warns_without_the_sweep(timed, alice, traveller):
    traveller.move_to(START + 2 * DAY + dt.timedelta(hours=1))
    services.expire_due_games_of(alice)
    assert low_time(alice) == [(START + 3 * DAY).isoformat()]


def test_one_day_games_get_no_separate_warning(alice, bob, traveller):
    made = services.challenge(challenger=bob, challenged=alice, days_per_move=1)
    services.accept_challenge(challenge_id=made.pk, player=alice, colour="white")
    traveller.move_to(START + dt.timedelta(hours=20))
    services.expire_due_games()
    assert low_time(alice) == []


def test_games_without_a_clock_get_no_warning(game, alice, traveller):
    traveller.move_to(START + 30 * DAY)
    services.expire_due_games()
    assert low_time(alice) == []


def test_guests_get_no_notifications_from_their_games(alice, make_player, play):
    guest = make_player("ana@distribuido")
    GuestIdentity.objects.create(player=guest, gateway="distribuido", name="ana")
    game = services.start_gateway_game(white=alice, black=guest)
    play(game, "e4", "e5", "d4")
    services.resign(game_id=game.pk, player=alice)
    assert of(guest) == []
    assert [n.kind for n in of(alice)] == ["opponent_moved", "game_over"]


# --------------------------------------------------------------------------- retention


def test_the_purge_deletes_only_notifications_read_long_ago(alice, bob, traveller, settings):
    from django.core.management import call_command

    settings.NOTIFICATIONS_KEEP_READ_DAYS = 30
    old_read = notifications.notify(recipient=alice, kind=NotificationKind.GAME_OVER)
    old_unread = notifications.notify(recipient=bob, kind=NotificationKind.GAME_OVER)
    notifications.mark_read(alice.pk)
    traveller.move_to(START + 31 * DAY)
    recent_read = notifications.notify(recipient=alice, kind=NotificationKind.LOW_TIME)
    notifications.mark_read(alice.pk)
    out = io.StringIO()
    call_command("purge_notifications", stdout=out)
    assert "Deleted 1 notification(s)" in out.getvalue()
    left = set(Notification.objects.values_list("pk", flat=True))
    assert left == {old_unread.pk, recent_read.pk}
    assert old_read.pk not in left


def test_the_purge_refuses_a_negative_age(db):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError):
        call_command("purge_notifications", "--days", "-1")


def test_the_unread_count_is_counted_and_pushed_only_to_a_player_on_the_site(
    game, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts import presence

    pushed: list[dict] = []
    monkeypatch.setattr(
        "games.notifications.send_to_groups", lambda groups, message: pushed.append(message)
    )

    def counts(queries) -> int:
        return sum('COUNT(*)' in q["sql"] and "games_notification" in q["sql"] for q in queries)

    # bob is away: the move costs no COUNT, and nothing is pushed.
    with (
        CaptureQueriesContext(connection) as away,
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.make_move(game_id=game.pk, player=alice, move_number=1, move="e4")
    assert counts(away.captured_queries) == 0
    assert pushed == []

    # bob opens a page: his count follows each change.
    presence.socket_opened(bob.pk)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            services.offer_draw(game_id=game.pk, player=alice)
    finally:
        presence.socket_closed(bob.pk)
    assert [m["unread"] for m in pushed] == [notifications.unread_count(bob.pk)]
