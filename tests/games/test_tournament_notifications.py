"""What players are told of their tournaments: the start (in the app and by mail, on a
real SMTP server), the call-off, their result; and a tournament game's notifications and
mail naming the event and round."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.models import Preferences
from games import services, state, tasks
from games.models import Game, Notification, NotificationKind
from tests.games.tournaments import end_game, join_all, make_event, make_players

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mail_settings(settings):
    settings.SITE_URL = "https://ajedrez.example"


@pytest.fixture
def three(make_player):
    players = make_players(make_player, 3)
    for player in players:
        player.email = f"{player.username}@example.org"
        player.save(update_fields=["email"])
    return players


def _of(kind: str, player) -> Notification:
    return Notification.objects.select_related("actor", "game").get(kind=kind, recipient=player)


def test_the_start_is_mailed_with_a_link_to_the_event(
    smtp_server, three, django_capture_on_commit_callbacks
):
    event = make_event(max_players=3)
    with django_capture_on_commit_callbacks(execute=True):
        join_all(event, three)
    note = _of(NotificationKind.TOURNAMENT_STARTED, three[0])
    assert state.notification_text(note) == "Spring Cup has started: your 2 games are waiting."
    assert state.notification_target(note) == reverse("tournament_detail", args=[event.pk])
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    assert received["To"] == "p01@example.org"
    assert received["Subject"] == "[Ajedrez] Spring Cup: your games have started"
    text = received.get_body(("plain",)).get_content()
    assert "Spring Cup has started: your 2 games are waiting." in text
    assert f"https://ajedrez.example/tournaments/{event.pk}/" in text


def test_the_start_is_mailed_in_the_players_language(
    smtp_server, three, django_capture_on_commit_callbacks
):
    Preferences.objects.update_or_create(player=three[0], defaults={"language": "es"})
    event = make_event(max_players=3)
    join_all(event, three)
    note = _of(NotificationKind.TOURNAMENT_STARTED, three[0])
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    assert received["Subject"] == "[Ajedrez] Spring Cup: han empezado tus partidas"
    assert "Spring Cup ha empezado: te esperan tus 2 partidas." in (
        received.get_body(("plain",)).get_content()
    )


def test_a_tournament_games_mail_names_the_event_and_round(
    smtp_server, three, play
):
    event = make_event(max_players=3)
    join_all(event, three)
    game = Game.objects.filter(tournament=event).order_by("pk").first()
    play(game, "e4")
    note = _of(NotificationKind.OPPONENT_MOVED, game.black)
    label = f"Spring Cup, round {game.tournament_round}"
    assert state.notification_text(note).endswith(f"your move. ({label})")
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    assert received["Subject"] == (
        f"[Ajedrez] Your move in {game.public_id} against {game.white.username} ({label})"
    )


def test_a_multi_round_games_label_names_its_round_and_group(make_player):
    event = make_event(kind="multi_round", max_players=6, group_size=3, advance=1)
    join_all(event, make_players(make_player, 6))
    game = Game.objects.filter(tournament=event, tournament_group__number=2).first()
    note = _of(NotificationKind.TOURNAMENT_STARTED, game.white)
    assert state.notification_text(note) == (
        "Spring Cup has started: your 2 games in group 2 of round 1 are waiting."
    )
    services.resign(game_id=game.pk, player=game.black)
    over = Notification.objects.select_related("game", "game__tournament").get(
        kind=NotificationKind.GAME_OVER, recipient=game.white
    )
    assert state.notification_text(over).endswith("(Spring Cup, round 1, group 2)")


def test_a_call_off_is_told(three):
    event = make_event(min_players=4, max_players=5)
    join_all(event, three)
    services.start_tournament(tournament_id=event.pk)
    note = _of(NotificationKind.TOURNAMENT_CANCELLED, three[1])
    assert state.notification_text(note) == "Spring Cup was called off: too few players joined."
    assert state.notification_subject(note) == "Spring Cup was called off"
    with translation.override("es"):
        assert state.notification_text(note) == (
            "Spring Cup se ha suspendido: no se apuntaron bastantes jugadores."
        )


def test_each_player_is_told_their_place_when_the_event_ends(three):
    event = make_event(max_players=3)
    join_all(event, three)
    for game in Game.objects.filter(tournament=event).order_by("pk"):
        # The player with the lower number wins each game.
        end_game(game, 1 if game.white.username < game.black.username else 0)
    texts = {
        p.username: state.notification_text(_of(NotificationKind.TOURNAMENT_RESULT, p))
        for p in three
    }
    assert texts == {
        "p01": "Spring Cup is over: you finished in place 1.",
        "p02": "Spring Cup is over: you finished in place 2.",
        "p03": "Spring Cup is over: you finished in place 3.",
    }
