"""What a player is told when their conditional reply is played at once: "bob played Nc6
in P0000004; your conditional move Bb5 was played: bob to move", never "your move", in
the bell, the notifications page, the mail and the live events, in both languages."""

from __future__ import annotations

import pytest
from django.core import mail as django_mail
from django.urls import reverse
from django.utils import translation
from django_tasks_db.models import DBTaskResult

from games import notifications, services, state, tasks
from games.models import Game, Notification, NotificationKind


@pytest.fixture
def line_set(game, alice, bob, play) -> Game:
    """1.e4 e5 2.Nf3, and white (alice) has set "Nc6 Bb5"; nothing unread."""
    play(game, "e4", "e5", "Nf3")
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=4, lines=[["Nc6", "Bb5"]]
    )
    for player in (alice, bob):
        notifications.mark_read(player.pk)
    return game


def bob_plays_nc6(game: Game, bob) -> Game:
    return services.make_move(game_id=game.pk, player=bob, move_number=4, move="Nc6")


def unread_move_note(player) -> Notification:
    return Notification.objects.get(
        recipient=player, kind=NotificationKind.OPPONENT_MOVED, read_at__isnull=True
    )


def test_the_owner_is_told_their_reply_was_played_and_whose_move_it_is(line_set, alice, bob):
    bob_plays_nc6(line_set, bob)
    number = line_set.public_id
    note = unread_move_note(alice)
    assert state.notification_text(note) == (
        f"bob played Nc6 in {number}; your conditional move Bb5 was played: bob to move."
    )
    assert "your move" not in state.notification_text(note)
    assert state.notification_subject(note) == (
        f"Your conditional move was played in {number} against bob"
    )
    # bob, whose move it is, is told of alice's reply as of any move.
    assert state.notification_text(unread_move_note(bob)) == (
        f"alice played Bb5 in {number}: your move."
    )


def test_the_texts_in_spanish(line_set, alice, bob):
    bob_plays_nc6(line_set, bob)
    number = line_set.public_id
    with translation.override("es"):
        assert state.notification_text(unread_move_note(alice)) == (
            f"bob jugó Nc6 en {number}; se jugó tu jugada condicional Bb5: le toca a bob."
        )
        assert state.notification_subject(unread_move_note(alice)) == (
            f"Se jugó tu jugada condicional en {number} contra bob"
        )


def test_moves_waiting_unread_are_counted_with_the_reply(game, alice, bob, play):
    # alice has not read bob's e5 when his Nc6 sets off her Bb5: one notification tells
    # of both his moves, and of her reply.
    play(game, "e4", "e5", "Nf3")
    services.set_conditional_lines(
        game_id=game.pk, player=alice, move_number=4, lines=[["Nc6", "Bb5"]]
    )
    bob_plays_nc6(game, bob)
    note = unread_move_note(alice)
    assert (note.detail["count"], note.detail["san"], note.detail["reply"]) == (2, "Nc6", "Bb5")
    assert state.notification_text(note) == (
        f"bob played 2 moves in {game.public_id}, the last Nc6; your conditional move Bb5 "
        "was played: bob to move."
    )


def test_the_bell_list_says_it_in_the_players_language(client, line_set, alice, bob):
    bob_plays_nc6(line_set, bob)
    client.force_login(alice)
    number = line_set.public_id
    page = client.get(reverse("notification_list")).content.decode()
    assert (
        f"bob played Nc6 in {number}; your conditional move Bb5 was played: bob to move."
        in page
    )
    assert f"bob played Nc6 in {number}: your move." not in page
    spanish = client.get(reverse("notification_list"), headers={"accept-language": "es"})
    assert "se jugó tu jugada condicional Bb5: le toca a bob." in spanish.content.decode()


def test_the_first_moves_event_says_a_reply_followed(
    line_set, bob, django_capture_on_commit_callbacks, monkeypatch
):
    sent: list[dict] = []
    monkeypatch.setattr(
        "games.events.publish_on_commit",
        lambda groups, build, then=(): sent.append(build()),
    )
    bob_plays_nc6(line_set, bob)
    moves = [(m["move"]["san"], m["replied"], m["game"]["turn"]) for m in sent]
    # Nc6's position is white's to move, but white's reply followed at once.
    assert moves == [("Nc6", True, "white"), ("Bb5", False, "black")]


def test_no_your_move_mail_goes_to_the_owner(
    line_set, alice, bob, smtp_server, django_capture_on_commit_callbacks, settings
):
    settings.SITE_URL = "https://ajedrez.example"
    for player, address in ((alice, "alice@example.org"), (bob, "bob@example.org")):
        player.email = address
        player.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        bob_plays_nc6(line_set, bob)
    for note in Notification.objects.filter(kind=NotificationKind.OPPONENT_MOVED):
        tasks.deliver(note.pk)
    # Only bob, whose move it is, is mailed; alice's news waits in her bell.
    assert [m["To"] for m in smtp_server.messages] == ["bob@example.org"]
    assert smtp_server.messages[0]["Subject"] == (
        f"[Ajedrez] Your move in {line_set.public_id} against alice"
    )
    assert django_mail.outbox == []


def test_no_mail_is_queued_for_the_reply_played(
    line_set, alice, bob, django_capture_on_commit_callbacks
):
    # A queued task is a write: none for news that is not "your move".
    for player, address in ((alice, "alice@example.org"), (bob, "bob@example.org")):
        player.email = address
        player.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        bob_plays_nc6(line_set, bob)
    queued = [task.args_kwargs["args"] for task in DBTaskResult.objects.all()]
    assert queued == [[unread_move_note(bob).pk]]
