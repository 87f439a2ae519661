"""The daily digest: one mail a day, at the player's hour in their zone, listing the
games where it is their move, instead of a mail per move; sent by the real worker to a
real SMTP server on loopback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail as django_mail
from django.test import Client
from django.urls import reverse
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult

from accounts import services as account_services
from accounts.selectors import preferences_of
from ajedrez.task_worker import WorkerThread
from games import digest, services
from games.models import DailyDigest, Notification, NotificationKind, wants_mail

pytestmark = pytest.mark.django_db

# 07:10 UTC: 08:10 in Madrid (CET), 16:10 in Tokyo.
NOW = datetime(2026, 1, 15, 7, 10, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _mail_settings(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://ajedrez.example"
    settings.MAIL_SEND_ATTEMPTS = 3
    settings.MAIL_RETRY_SECONDS = 60


@pytest.fixture
def bob_digest(bob):
    bob.email = "bob@example.org"
    bob.save(update_fields=["email"])
    account_services.save_preferences(
        player=bob,
        values={"mail_digest": True, "digest_hour": 8, "time_zone": "Europe/Madrid"},
    )
    return bob


def waiting_game(white, black, play, days=3):
    """A game where it is ``black``'s move."""
    challenge = services.challenge(challenger=black, challenged=white, days_per_move=days)
    game = services.accept_challenge(challenge_id=challenge.pk, player=white, colour="white")
    return play(game, "e4")


def run_worker(monkeypatch) -> None:
    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)
    WorkerThread(interval=0).worker.look_and_run()


def test_the_digest_is_queued_once_at_the_players_hour_in_their_zone(
    alice, bob_digest, play
):
    with time_machine.travel(NOW - timedelta(hours=2), tick=False):
        waiting_game(alice, bob_digest, play)
    DBTaskResult.objects.all().delete()

    # 07:10 in Madrid: not yet.
    with time_machine.travel(NOW - timedelta(hours=1), tick=False):
        assert digest.queue_due_digests() == 0
    # 08:10 in Madrid: due; a second run in the same hour, or the next, sends nothing more.
    with time_machine.travel(NOW, tick=False):
        assert digest.queue_due_digests() == 1
        assert digest.queue_due_digests() == 0
    with time_machine.travel(NOW + timedelta(minutes=40), tick=False):
        assert digest.queue_due_digests() == 0
    [claim] = DailyDigest.objects.all()
    assert (claim.recipient, str(claim.day)) == (bob_digest, "2026-01-15")
    [queued] = DBTaskResult.objects.all()
    assert queued.task_path == "games.digest.send_digest_mail"
    # The next day at the same hour, again.
    with time_machine.travel(NOW + timedelta(days=1), tick=False):
        assert digest.queue_due_digests() == 1


def test_no_digest_when_no_game_waits(alice, bob_digest, play):
    game = waiting_game(alice, bob_digest, play)
    play(game, "e5")  # now alice's move
    with time_machine.travel(NOW, tick=False):
        assert digest.queue_due_digests() == 0
    assert not DailyDigest.objects.exists()


def test_no_digest_with_all_mail_off_or_without_an_address(alice, bob_digest, carol, play):
    waiting_game(alice, bob_digest, play)
    account_services.save_preferences(player=bob_digest, values={"mail": False})
    with time_machine.travel(NOW, tick=False):
        assert digest.queue_due_digests() == 0


def test_with_the_digest_moves_are_not_mailed_one_by_one(alice, bob_digest, play):
    prefs = preferences_of(bob_digest)
    assert not wants_mail(prefs, NotificationKind.OPPONENT_MOVED)
    # The rest comes as it happens.
    assert wants_mail(prefs, NotificationKind.CHALLENGE_RECEIVED)
    assert wants_mail(prefs, NotificationKind.LOW_TIME)
    DBTaskResult.objects.all().delete()
    waiting_game(alice, bob_digest, play)
    note = Notification.objects.get(recipient=bob_digest, kind="opponent_moved")
    mailed = [
        task.args_kwargs["args"][0]
        for task in DBTaskResult.objects.filter(task_path="games.tasks.send_notification_mail")
    ]
    assert note.pk not in mailed


def test_the_digest_lists_the_waiting_games_in_the_players_language_and_zone(
    smtp_server, alice, bob_digest, carol, play, monkeypatch
):
    account_services.save_preferences(player=bob_digest, values={"language": "es"})
    with time_machine.travel(NOW - timedelta(hours=2), tick=False):
        first = waiting_game(alice, bob_digest, play)
        second = waiting_game(carol, bob_digest, play, days=1)
    DBTaskResult.objects.all().delete()
    with time_machine.travel(NOW, tick=False):
        assert digest.queue_due_digests() == 1
        run_worker(monkeypatch)

    [received] = smtp_server.messages
    assert received["To"] == "bob@example.org"
    assert received["Subject"] == "[Ajedrez] 2 partidas esperan tu jugada"
    text = received.get_body(("plain",)).get_content()
    html = received.get_body(("html",)).get_content()
    for game in (first, second):
        assert f"https://ajedrez.example/games/{game.pk}/" in text
        assert f"https://ajedrez.example/games/{game.pk}/" in html
    assert "1. e4" in text
    # Deadlines in Madrid's time, the zone named.
    assert "(hasta " in text and "CET)" in text
    # The one-click link stops all mail.
    stop = received["List-Unsubscribe"].strip().strip("<>")
    assert Client(enforce_csrf_checks=True).post(
        stop.removeprefix("https://ajedrez.example")
    ).status_code == 200
    assert not preferences_of(bob_digest).mail


def test_a_digest_whose_player_turned_it_off_meanwhile_is_not_sent(
    alice, bob_digest, play, monkeypatch
):
    waiting_game(alice, bob_digest, play)
    DBTaskResult.objects.all().delete()
    with time_machine.travel(NOW, tick=False):
        digest.queue_due_digests()
    account_services.save_preferences(player=bob_digest, values={"mail_digest": False})
    run_worker(monkeypatch)
    assert DBTaskResult.objects.get().return_value == "skipped: not wanted"
    assert not django_mail.outbox


def test_the_preferences_page_sets_the_digest_and_refuses_a_bad_hour(bob):
    client = Client()
    client.force_login(bob)
    look = {"board_theme": "brown", "piece_set": "cburnett", "orientation": "auto"}
    response = client.post(
        reverse("preferences"),
        {**look, "mail": "on", "mail_digest": "on", "digest_hour": "21"},
    )
    assert response["Location"] == reverse("preferences")
    prefs = preferences_of(bob)
    assert (prefs.mail_digest, prefs.digest_hour) == (True, 21)
    # Without the field (a page of before the digest), the stored hour stays.
    client.post(reverse("preferences"), {**look, "mail": "on", "mail_digest": "on"})
    assert preferences_of(bob).digest_hour == 21
    for bad in ("24", "-1", "abc", "9" * 30, "8.5"):
        response = client.post(
            reverse("preferences"), {**look, "mail_digest": "on", "digest_hour": bad}
        )
        assert response.status_code == 200, bad
        assert "digest_hour" in response.context["form"].errors, bad
        assert preferences_of(bob).digest_hour == 21
