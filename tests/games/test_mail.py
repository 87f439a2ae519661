"""E-mail about notifications: the parts first (settings, links, presence, the decision
and the message), then a real SMTP server on loopback (aiosmtpd) and the real worker
reading tasks from the database."""

from __future__ import annotations

import logging
import socket
import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail as django_mail
from django.core import signing
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult, get_date_max

from accounts import presence
from accounts import services as account_services
from accounts.models import Preferences
from accounts.selectors import preferences_of
from ajedrez.settings import _email_settings
from ajedrez.task_worker import WorkerThread
from games import mail, notifications, services, state, tasks
from games.mail_links import BadMailLink, read_stop_token, stop_token
from games.models import Game, Notification, NotificationKind, mail_kind_on, wants_mail
from tests.smtp import free_port

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _mail_settings(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://ajedrez.example"
    settings.MAIL_MOVE_INTERVAL_HOURS = 6
    settings.MAIL_SEND_ATTEMPTS = 3
    settings.MAIL_RETRY_SECONDS = 60


@pytest.fixture
def players(alice, bob):
    for player, address in ((alice, "alice@example.org"), (bob, "bob@example.org")):
        player.email = address
        player.save(update_fields=["email"])
    return alice, bob


def notify(django_capture_on_commit_callbacks, **kwargs) -> Notification:
    with django_capture_on_commit_callbacks(execute=True):
        made = notifications.notify(**kwargs)
    assert made is not None
    return made


def moved(game: Game, mover, recipient, capture) -> Notification:
    return notify(
        capture, recipient=recipient, kind=NotificationKind.OPPONENT_MOVED, game=game,
        actor=mover, detail={"san": game.last_move_san},
    )


# -- settings -------------------------------------------------------------------------


def test_console_backend_without_any_mail_setting(monkeypatch):
    monkeypatch.delenv("EMAIL_URL", raising=False)
    monkeypatch.delenv("EMAIL_HOST", raising=False)
    assert _email_settings() == {
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"
    }


def test_email_url_with_starttls_and_an_encoded_password(monkeypatch):
    monkeypatch.setenv("EMAIL_URL", "smtp://user:p%40ss%3Aw@mail.example:587/?tls=True")
    got = _email_settings()
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"]) == ("mail.example", 587)
    assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"]) == ("user", "p@ss:w")
    assert got["EMAIL_USE_TLS"] is True and got["EMAIL_USE_SSL"] is False


def test_smtps_url_means_ssl_on_465(monkeypatch):
    monkeypatch.setenv("EMAIL_URL", "smtps://mail.example")
    got = _email_settings()
    assert (got["EMAIL_PORT"], got["EMAIL_USE_SSL"]) == (465, True)


@pytest.mark.parametrize("url", ["ftp://mail.example", "smtp://mail.example:notaport"])
def test_a_bad_email_url_is_refused_at_start(monkeypatch, url):
    monkeypatch.setenv("EMAIL_URL", url)
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL"):
        _email_settings()


def test_email_host_variables(monkeypatch):
    monkeypatch.delenv("EMAIL_URL", raising=False)
    monkeypatch.setenv("EMAIL_HOST", "relay.example")
    monkeypatch.setenv("EMAIL_PORT", "2525")
    monkeypatch.setenv("EMAIL_USE_TLS", "true")
    got = _email_settings()
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"], got["EMAIL_USE_TLS"]) == (
        "relay.example", 2525, True,
    )


# -- stop links -----------------------------------------------------------------------


def test_stop_token_reads_back():
    assert read_stop_token(stop_token(7, NotificationKind.LOW_TIME)) == (7, "low_time")
    assert read_stop_token(stop_token(7, None)) == (7, None)


def _tampered(token: str) -> str:
    head, _sep, tail = token.partition(":")
    return ("A" if head[0] != "A" else "B") + head[1:] + ":" + tail


@pytest.mark.parametrize(
    "token",
    [
        _tampered(stop_token(7, NotificationKind.LOW_TIME)),
        stop_token(7, NotificationKind.LOW_TIME)[:-3],
        signing.dumps([7, "low_time"], salt="another.salt", compress=False),
        signing.dumps([7, "low_time"], key="another secret", salt="ajedrez.mail.stop"),
        signing.dumps([7, "no_such_kind"], salt="ajedrez.mail.stop", compress=False),
        signing.dumps({"u": 7}, salt="ajedrez.mail.stop", compress=False),
        signing.dumps([True, "all"], salt="ajedrez.mail.stop", compress=False),
        signing.dumps([-1, "all"], salt="ajedrez.mail.stop", compress=False),
        "",
        "ñandú:ß:☃",
        "A" * 5000,
    ],
    ids=["tampered", "cut", "other-salt", "forged-key", "unknown-kind", "other-shape",
         "bool-id", "negative-id", "empty", "unicode", "huge"],
)
def test_a_bad_stop_token_is_refused(token):
    with pytest.raises(BadMailLink):
        read_stop_token(token)


def test_stop_link_get_confirms_and_changes_nothing(alice):
    url = reverse("mail_stop", args=[stop_token(alice.pk, NotificationKind.OPPONENT_MOVED)])
    response = Client().get(url)
    assert response.status_code == 200
    assert b"mail-stop-form" in response.content
    assert wants_mail(preferences_of(alice), NotificationKind.OPPONENT_MOVED)


def test_a_link_followed_again_after_stopping_says_it_is_stopped(alice):
    for kind in (NotificationKind.OPPONENT_MOVED, None):
        url = reverse("mail_stop", args=[stop_token(alice.pk, kind)])
        assert b"mail-stop-form" in Client().get(url).content
        Client().post(url)
        again = Client().get(url)
        assert again.status_code == 200
        assert b"mail-stop-form" not in again.content
        assert b'id="mail-stopped"' in again.content


def test_one_click_post_without_login_or_csrf_stops_that_kind_only(alice):
    url = reverse("mail_stop", args=[stop_token(alice.pk, NotificationKind.OPPONENT_MOVED)])
    client = Client(enforce_csrf_checks=True)
    response = client.post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    prefs = preferences_of(alice)
    assert not wants_mail(prefs, NotificationKind.OPPONENT_MOVED)
    assert wants_mail(prefs, NotificationKind.LOW_TIME)
    # Again: harmless.
    assert client.post(url).status_code == 200
    assert not wants_mail(preferences_of(alice), NotificationKind.OPPONENT_MOVED)


def test_stop_all_link(alice):
    Client().post(reverse("mail_stop", args=[stop_token(alice.pk, None)]))
    prefs = preferences_of(alice)
    assert not any(wants_mail(prefs, kind) for kind in NotificationKind)


def test_a_token_acts_for_its_owner_only_whoever_is_logged_in(alice, bob):
    client = Client()
    client.force_login(bob)
    client.post(reverse("mail_stop", args=[stop_token(alice.pk, None)]))
    assert not preferences_of(alice).mail
    assert preferences_of(bob).mail


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_link_is_refused_with_a_page_and_changes_nothing(alice, method):
    token = _tampered(stop_token(alice.pk, None))
    response = getattr(Client(), method)(reverse("mail_stop", args=[token]))
    assert response.status_code == 400
    assert b"mail-stop-refused" in response.content
    assert not Preferences.objects.exists()


@pytest.mark.parametrize(
    "path_token",
    [
        "abc%00def",  # a NUL byte
        "WzEsImFsbCJd%00:x:y",
        "%C3%B1and%C3%BA%E2%98%83:x:y",  # unicode
        "%FF%FE",  # not UTF-8
        "A" * 8000,  # far past MAX_TOKEN_LENGTH
    ],
    ids=["nul", "nul-in-a-token", "unicode", "not-utf8", "huge"],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_odd_tokens_in_the_address_are_refused_with_a_page(alice, method, path_token):
    response = getattr(Client(), method)(f"/accounts/mail/stop/{path_token}/")
    assert response.status_code == 400
    assert b"mail-stop-refused" in response.content
    assert not Preferences.objects.exists()


def test_a_token_with_slashes_is_no_such_page(alice):
    # %2F is decoded before routing: the path has more parts than the link's.
    for path_token in ("..%2F..%2Fadmin", "a/b"):
        response = Client().post(f"/accounts/mail/stop/{path_token}/")
        assert response.status_code == 404
    assert not Preferences.objects.exists()


def test_head_shows_like_get_and_other_methods_are_refused(alice):
    url = reverse("mail_stop", args=[stop_token(alice.pk, None)])
    client = Client()
    head = client.head(url)
    assert head.status_code == 200 and head.content == b""
    for method in ("put", "delete", "patch", "options"):
        assert getattr(client, method)(url).status_code == 405, method
    assert preferences_of(alice).mail  # nothing of that stopped anything


def test_a_link_of_an_account_deleted_since_is_refused():
    response = Client().post(reverse("mail_stop", args=[stop_token(999999, None)]))
    assert response.status_code == 400


def test_restoring_the_default_look_keeps_the_mail_choices(alice):
    client = Client()
    client.force_login(alice)
    client.post(reverse("mail_stop", args=[stop_token(alice.pk, None)]))
    client.post(reverse("preferences_restore"))
    assert not preferences_of(alice).mail


# -- preferences ----------------------------------------------------------------------


def _preferences_post(**changes):
    data = {
        "board_theme": "brown", "piece_set": "cburnett", "orientation": "auto",
        "show_coordinates": "on", "sound": "on", "show_status_bar": "on",
        "confirm_moves": "on", "mail": "on", "mail_kinds_shown": "1",
        **{f"mail_{kind}": "on" for kind in ("opponent_moved", "low_time", "game_over")},
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_preferences_turn_kinds_of_mail_on_and_off(alice):
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("preferences"))
    assert b"mail_low_time" in page.content
    response = client.post(
        reverse("preferences"), _preferences_post(mail_opponent_on_vacation="on")
    )
    assert response.status_code == 302
    prefs = preferences_of(alice)
    assert wants_mail(prefs, NotificationKind.OPPONENT_ON_VACATION)
    assert not wants_mail(prefs, NotificationKind.CHALLENGE_RECEIVED)
    assert wants_mail(prefs, NotificationKind.OPPONENT_MOVED)


def test_all_mail_off_keeps_the_kinds_chosen_for_when_it_is_on_again(alice):
    client = Client()
    client.force_login(alice)
    client.post(reverse("preferences"), _preferences_post(mail_opponent_on_vacation="on"))

    def chosen():
        stored = preferences_of(alice)
        return (
            stored.mail,
            mail_kind_on(stored, NotificationKind.OPPONENT_ON_VACATION),
            mail_kind_on(stored, NotificationKind.CHALLENGE_RECEIVED),
        )

    assert chosen() == (True, True, False)
    page = client.get(reverse("preferences")).content.decode()
    assert 'id="mail-kinds" data-enabled-by="id_mail">' in page
    # All mail off: the page greys the kinds out, so the browser sends none of them.
    greyed = {k: v for k, v in _preferences_post(mail=None).items() if not k.startswith("mail_")}
    assert client.post(reverse("preferences"), greyed).status_code == 302
    assert chosen() == (False, True, False)
    page = client.get(reverse("preferences")).content.decode()
    assert 'id="mail-kinds" data-enabled-by="id_mail" disabled>' in page
    # On again from a browser without script: the switches were still greyed out.
    assert client.post(reverse("preferences"), {**greyed, "mail": "on"}).status_code == 302
    assert chosen() == (True, True, False)


def test_mail_is_written_in_the_recipients_language(
    players, moved_game, settings
):
    _alice, bob = players
    note = Notification.objects.get(
        recipient=bob, game=moved_game, kind=NotificationKind.OPPONENT_MOVED
    )
    settings.LANGUAGE_CODE = "en"
    assert mail.build_message(note).subject.startswith("[Ajedrez] Your move in")
    Preferences.objects.update_or_create(player=bob, defaults={"language": "es"})
    spanish = mail.build_message(note)
    assert spanish.subject.startswith("[Ajedrez] Te toca en"), spanish.subject
    assert "alice jugó e4" in spanish.body, spanish.body[:200]


def test_preferences_with_bad_input_save_nothing(alice):
    client = Client()
    client.force_login(alice)
    response = client.post(
        reverse("preferences"), _preferences_post(board_theme="purple", mail=None)
    )
    assert response.status_code == 200
    assert b"purple" in response.content or b"valid choice" in response.content
    assert not Preferences.objects.filter(player=alice).exists()


# -- presence -------------------------------------------------------------------------


def test_presence_follows_sockets(alice):
    presence.socket_opened(alice.pk)
    presence.socket_opened(alice.pk)
    assert presence.is_online(alice.pk)
    presence.socket_closed(alice.pk)
    assert presence.is_online(alice.pk)
    presence.socket_closed(alice.pk)
    assert not presence.is_online(alice.pk)


def test_presence_of_a_dead_process_lapses(alice, settings):
    settings.PRESENCE_TTL_SECONDS = 90
    with time_machine.travel(NOW, tick=False) as clock:
        presence.socket_opened(alice.pk)
        clock.shift(60)
        assert presence.is_online(alice.pk)
        # No renewal (the process died): the mark lapses.
        clock.shift(31)
        assert not presence.is_online(alice.pk)
    presence._open.clear()


def test_renewal_keeps_an_open_socket_present(alice, settings):
    settings.PRESENCE_TTL_SECONDS = 90
    with time_machine.travel(NOW, tick=False) as clock:
        presence.socket_opened(alice.pk)
        for _ in range(5):
            clock.shift(30)
            presence.renew()
        assert presence.is_online(alice.pk)
        presence.socket_closed(alice.pk)


def test_closing_here_keeps_another_process_mark(alice, monkeypatch):
    monkeypatch.setattr(presence, "PROCESS", "other")
    presence.socket_opened(alice.pk)
    presence._open.clear()
    monkeypatch.setattr(presence, "PROCESS", "this")
    presence.socket_opened(alice.pk)
    presence.socket_closed(alice.pk)
    assert presence.is_online(alice.pk)


# -- the decision and the message -----------------------------------------------------


@pytest.fixture
def moved_game(players, start_game, play):
    alice, bob = players
    game = start_game(alice, bob)
    return play(game, "e4")


def test_your_move_mail_as_rendered(players, moved_game):
    _alice, bob = players
    # The notification the move itself made.
    note = Notification.objects.get(
        recipient=bob, game=moved_game, kind=NotificationKind.OPPONENT_MOVED
    )
    # The signed tokens hold the second they were made: the mail's and the ones compared
    # below are made in the same second only on a stopped clock.
    with time_machine.travel(timezone.now(), tick=False):
        assert tasks.deliver(note.pk) == "sent"
        stop_kind = stop_token(bob.pk, NotificationKind.OPPONENT_MOVED)
        stop_all = stop_token(bob.pk, None)
    [message] = django_mail.outbox
    assert message.to == ["bob@example.org"]
    assert message.subject == f"[Ajedrez] Your move in {moved_game.public_id} against alice"
    link = f"https://ajedrez.example/games/{moved_game.pk}/"
    assert f"alice played e4 in {moved_game.public_id}: your move." in message.body
    assert link in message.body
    assert "Last move: e4" in message.body
    assert moved_game.deadline is None and "Your clock" not in message.body  # no clock
    # The text diagram from black's side: black's pieces at the bottom.
    lines = message.body.splitlines()
    assert any(line.startswith("♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖") for line in lines)
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html"
    assert "<table" in html and "♙" in html and link in html
    for part in (message.body, html):
        assert f"https://ajedrez.example/accounts/mail/stop/{stop_kind}/" in part
        assert f"https://ajedrez.example/accounts/mail/stop/{stop_all}/" in part
    assert message.extra_headers["List-Unsubscribe"] == (
        f"<https://ajedrez.example/accounts/mail/stop/{stop_kind}/>"
    )
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_game_over_mail_says_who_won(players, start_game, play, django_capture_on_commit_callbacks):
    alice, bob = players
    game = start_game(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        play(game, "e4", "e5")
        services.resign(game_id=game.pk, player=bob)
    [over] = Notification.objects.filter(recipient=alice, kind=NotificationKind.GAME_OVER)
    assert tasks.deliver(over.pk) == "sent"
    message = django_mail.outbox[-1]
    assert message.subject == f"[Ajedrez] You won {game.public_id}"
    assert f"You won {game.public_id} against bob (resignation)." in message.body


def test_no_mail_is_queued_for_ones_own_resignation(
    players, start_game, play, django_capture_on_commit_callbacks
):
    alice, bob = players
    game = start_game(alice, bob)
    play(game, "e4", "e5")
    DBTaskResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        services.resign(game_id=game.pk, player=bob)
    [queued] = DBTaskResult.objects.all()
    [told] = Notification.objects.filter(pk=queued.args_kwargs["args"][0])
    assert (told.recipient, told.kind) == (alice, NotificationKind.GAME_OVER)
    assert Notification.objects.get(recipient=bob, kind=NotificationKind.GAME_OVER).read_at


def test_a_clock_stopped_for_a_vacation_shows_the_time_it_kept():
    now = timezone.now()
    game = Game(status=Game.Status.ACTIVE, deadline=now + timedelta(days=2),
                paused_at=now - timedelta(days=1))
    assert mail._time_left(game, now) == "3d 0h left"
    game.paused_at = None
    assert mail._time_left(game, now) == "2d 0h left"


def test_mail_in_spanish_when_the_site_speaks_spanish(
    players, moved_game, settings, django_capture_on_commit_callbacks
):
    settings.LANGUAGE_CODE = "es"
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    tasks.deliver(note.pk)
    assert "Te toca" in django_mail.outbox[0].subject


def test_not_mailed_while_on_the_site(players, moved_game, django_capture_on_commit_callbacks):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    presence.socket_opened(bob.pk)
    try:
        assert tasks.deliver(note.pk) == "skipped: on the site"
    finally:
        presence.socket_closed(bob.pk)
    assert django_mail.outbox == []


def test_no_address_no_mail(alice, bob, start_game, play, django_capture_on_commit_callbacks):
    game = play(start_game(alice, bob), "e4")
    note = moved(game, alice, bob, django_capture_on_commit_callbacks)
    assert tasks.deliver(note.pk) == "skipped: no address"


def test_a_kind_turned_off_is_not_mailed(
    players, moved_game, django_capture_on_commit_callbacks
):
    alice, bob = players
    Client().post(
        reverse("mail_stop", args=[stop_token(bob.pk, NotificationKind.OPPONENT_MOVED)])
    )
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    assert tasks.deliver(note.pk) == "skipped: not wanted"


def test_no_mail_once_the_player_has_moved(
    players, moved_game, play, django_capture_on_commit_callbacks
):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    play(moved_game, "e5")
    assert tasks.deliver(note.pk) == "skipped: no longer their move"


def test_no_mail_once_read(players, moved_game, django_capture_on_commit_callbacks):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    Notification.objects.filter(pk=note.pk).update(read_at=timezone.now())
    assert tasks.deliver(note.pk) == "skipped: already read"


def test_game_deleted_meanwhile(players, moved_game, django_capture_on_commit_callbacks):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    Game.objects.filter(pk=moved_game.pk).delete()
    assert tasks.deliver(note.pk).startswith("skipped: the notification is gone")


def test_moves_are_batched_per_game_on_a_fake_clock(
    players, start_game, play, django_capture_on_commit_callbacks
):
    alice, bob = players
    with time_machine.travel(NOW, tick=False) as clock:
        game = play(start_game(alice, bob), "e4")
        first = moved(game, alice, bob, django_capture_on_commit_callbacks)
        assert tasks.deliver(first.pk) == "sent"
        # Bob moves, alice is mailed (her own window); then alice moves an hour later.
        clock.shift(timedelta(minutes=30))
        play(game, "e5")
        clock.shift(timedelta(minutes=30))
        play(game, "Nf3")
        second = moved(game, alice, bob, django_capture_on_commit_callbacks)
        outcome = tasks.deliver(second.pk)
        assert outcome.startswith("batched: waits until ")
        later = DBTaskResult.objects.filter(
            run_after__gt=timezone.now(), run_after__lt=get_date_max()
        ).get()
        assert later.run_after == NOW + timedelta(hours=6)
        clock.shift(timedelta(hours=5))
        assert len(django_mail.outbox) == 1
        # At the window's end the batched task runs and sends one mail.
        clock.shift(timedelta(hours=1))
        assert tasks.deliver(second.pk) == "sent"
        assert len(django_mail.outbox) == 2
        assert tasks.deliver(second.pk) == "skipped: already mailed about this move"


class FlakyBackend:
    """A mail backend whose first sends fail, as a mail server that is down."""

    failures = 0

    def __init__(self, **kwargs):
        pass

    def send_messages(self, messages):
        if FlakyBackend.failures > 0:
            FlakyBackend.failures -= 1
            raise ConnectionRefusedError("mail server down")
        django_mail.outbox.extend(messages)
        return len(messages)


def test_a_failed_send_is_retried_with_backoff_and_logged(
    players, moved_game, settings, caplog, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = f"{__name__}.FlakyBackend"
    FlakyBackend.failures = 1
    alice, bob = players
    with time_machine.travel(NOW, tick=False):
        note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
        with caplog.at_level(logging.WARNING, logger="ajedrez.mail"):
            outcome = tasks.deliver(note.pk)
        assert outcome.startswith("failed (attempt 1)")
        assert "mail server down" in caplog.text
        retry = DBTaskResult.objects.get(run_after=NOW + timedelta(seconds=60))
        assert retry.args_kwargs["kwargs"] == {"attempt": 2}
    # The claim was given back: the retry sends.
    assert tasks.deliver(note.pk, attempt=2) == "sent"
    assert len(django_mail.outbox) == 1


def test_the_last_failure_is_an_error_and_a_failed_task(
    players, moved_game, settings, caplog, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = f"{__name__}.FlakyBackend"
    FlakyBackend.failures = 10
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    with caplog.at_level(logging.ERROR, logger="ajedrez.mail"), pytest.raises(tasks.MailNotSent):
        tasks.deliver(note.pk, attempt=3)
    assert any(r.levelno == logging.ERROR and "given up" in r.message for r in caplog.records)


def test_a_move_is_made_even_when_the_queue_cannot_be_written(
    players, start_game, play, monkeypatch, caplog
):
    class Broken:
        def enqueue(self, *args, **kwargs):
            raise RuntimeError("queue down")

    monkeypatch.setattr(tasks, "send_notification_mail", Broken())
    _alice, bob = players
    note = Notification(pk=1, recipient=bob, kind=NotificationKind.LOW_TIME)
    tasks.queue_mail(sender=Notification, notification=note)
    assert "could not queue the mail of notification 1" in caplog.text


def test_no_task_is_queued_for_a_mail_that_could_not_be_sent(
    players, make_player, moved_game, django_capture_on_commit_callbacks
):
    # A task is a write: none for a player with no address, a kind turned off, or a
    # player on the site (who has seen the news).
    alice, bob = players
    nobody = make_player("nobody")  # no address
    notify(
        django_capture_on_commit_callbacks,
        recipient=nobody, kind=NotificationKind.CHALLENGE_RECEIVED, actor=alice,
    )
    notify(  # off by default
        django_capture_on_commit_callbacks,
        recipient=bob, kind=NotificationKind.CHALLENGE_DECLINED, actor=alice,
    )
    presence.socket_opened(bob.pk)
    try:
        moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    finally:
        presence.socket_closed(bob.pk)
    assert not DBTaskResult.objects.exists()
    moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    assert DBTaskResult.objects.count() == 1


# -- the worker, from the database ----------------------------------------------------


def test_the_worker_runs_the_queued_mail_from_the_database(
    players, moved_game, monkeypatch, django_capture_on_commit_callbacks
):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    queued = DBTaskResult.objects.get()
    assert queued.task_path == "games.tasks.send_notification_mail"
    assert queued.args_kwargs["args"] == [note.pk]
    # The worker closes stale connections between tasks, as after a request; here the
    # test's own transaction holds the connection, so that step is left out.
    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)
    WorkerThread(interval=0).worker.look_and_run()
    queued.refresh_from_db()
    assert queued.status == "SUCCESSFUL"
    assert queued.return_value == "sent"
    assert len(django_mail.outbox) == 1


# -- a real SMTP server on loopback ---------------------------------------------------


def test_delivered_to_a_real_smtp_server(
    smtp_server, players, moved_game, django_capture_on_commit_callbacks
):
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    assert received["To"] == "bob@example.org"
    assert received["Subject"] == f"[Ajedrez] Your move in {moved_game.public_id} against alice"
    assert received["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    stop = received["List-Unsubscribe"].strip().strip("<>")
    text = received.get_body(("plain",)).get_content()
    html = received.get_body(("html",)).get_content()
    assert f"https://ajedrez.example/games/{moved_game.pk}/" in text
    assert f"https://ajedrez.example/games/{moved_game.pk}/" in html
    assert stop in text and stop in html
    # The link in the mail works as it came, without logging in.
    path = stop.removeprefix("https://ajedrez.example")
    assert Client(enforce_csrf_checks=True).post(path).status_code == 200
    assert not wants_mail(preferences_of(bob), NotificationKind.OPPONENT_MOVED)


def test_smtp_refusing_then_accepting(
    smtp_server, players, moved_game, caplog, django_capture_on_commit_callbacks
):
    smtp_server.refuse = 1
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    with caplog.at_level(logging.WARNING, logger="ajedrez.mail"):
        assert tasks.deliver(note.pk).startswith("failed (attempt 1)")
    assert "451" in caplog.text
    assert tasks.deliver(note.pk, attempt=2) == "sent"
    assert len(smtp_server.messages) == 1


def test_smtp_down_does_not_lose_the_mail(
    settings, players, moved_game, caplog, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    alice, bob = players
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    with caplog.at_level(logging.WARNING, logger="ajedrez.mail"):
        assert tasks.deliver(note.pk).startswith("failed (attempt 1)")
    assert DBTaskResult.objects.filter(args_kwargs__kwargs__attempt=2).exists()


def test_a_server_that_never_answers_times_out_and_the_mail_is_retried(
    settings, players, moved_game, caplog, django_capture_on_commit_callbacks
):
    """Accepts the connection and says nothing, not even its greeting: the send gives up
    after EMAIL_TIMEOUT, the claim on the game's "your move" mail is given back, and a
    retry is queued. Meanwhile the game takes its next move (no lock is held)."""
    from games import services
    from games.models import MailedMove

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", silent.getsockname()[1]
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_TIMEOUT = 0.3
        alice, bob = players
        note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
        with caplog.at_level(logging.WARNING, logger="ajedrez.mail"):
            outcome = tasks.deliver(note.pk)
    assert outcome.startswith("failed (attempt 1)") and "timed out" in outcome, outcome
    assert "attempt 1 of 3" in caplog.text
    assert not MailedMove.objects.exists()
    assert DBTaskResult.objects.filter(args_kwargs__kwargs__attempt=2).exists()
    moved_game.refresh_from_db()
    services.make_move(
        game_id=moved_game.pk, player=bob, move_number=moved_game.next_move_number,
        move="e5",
    )


def test_every_mail_says_what_the_bell_says(players, start_game, play, settings):
    alice, bob = players
    challenge = services.challenge(challenger=alice, challenged=bob)
    services.decline_challenge(challenge_id=challenge.pk, player=bob)
    game = start_game(alice, bob)
    play(game, "e4")
    services.offer_draw(game_id=game.pk, player=bob)
    services.answer_draw(game_id=game.pk, player=alice, accept=False)
    services.resign(game_id=game.pk, player=bob)
    notes = list(Notification.objects.select_related("actor", "game", "challenge"))
    assert {n.kind for n in notes} >= {
        NotificationKind.CHALLENGE_RECEIVED, NotificationKind.CHALLENGE_DECLINED,
        NotificationKind.OPPONENT_MOVED, NotificationKind.DRAW_OFFERED,
        NotificationKind.DRAW_ANSWERED, NotificationKind.GAME_OVER,
    }
    for note in notes:
        message = mail.build_message(note)
        with translation.override(settings.LANGUAGE_CODE):
            assert message.subject == f"[Ajedrez] {state.notification_subject(note)}"
            assert state.notification_text(note) in message.body, note.kind


def test_a_mail_shows_the_recipients_own_clock_only(alice, bob, play):
    challenge = services.challenge(challenger=alice, challenged=bob, days_per_move=3)
    game = services.accept_challenge(challenge_id=challenge.pk, player=bob, colour="black")
    accepted = Notification.objects.get(recipient=alice, kind=NotificationKind.CHALLENGE_ACCEPTED)
    # alice (white) is to move: the clock is hers.
    assert "Your clock: 2d 23h left" in mail.build_message(accepted).body
    play(game, "e4")
    moved_note = Notification.objects.get(recipient=bob, kind=NotificationKind.OPPONENT_MOVED)
    assert "Your clock: 2d 23h left" in mail.build_message(moved_note).body
    # bob's move now: alice's mail about the acceptance has no clock of hers to show.
    accepted = Notification.objects.get(pk=accepted.pk)
    assert "Your clock" not in mail.build_message(accepted).body


def test_the_mail_names_the_deadline_in_the_recipients_time_zone(
    smtp_server, players, play, django_capture_on_commit_callbacks
):
    alice, bob = players
    challenge = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    started = services.accept_challenge(challenge_id=challenge.pk, player=alice, colour="white")
    moved_game = play(started, "e4")
    assert moved_game.deadline is not None
    account_services.save_preferences(player=bob, values={"time_zone": "Asia/Tokyo"})
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    text = received.get_body(("plain",)).get_content()
    html = received.get_body(("html",)).get_content()
    moved_game.refresh_from_db()
    in_tokyo = moved_game.deadline.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))
    until = f"(until {date_format(in_tokyo, 'DATETIME_FORMAT')} JST)"
    assert until in text
    assert until in html


def test_the_mail_of_a_player_with_no_zone_names_utc(
    smtp_server, players, play, django_capture_on_commit_callbacks
):
    alice, bob = players
    challenge = services.challenge(challenger=bob, challenged=alice, days_per_move=3)
    started = services.accept_challenge(challenge_id=challenge.pk, player=alice, colour="white")
    moved_game = play(started, "e4")
    assert moved_game.deadline is not None
    note = moved(moved_game, alice, bob, django_capture_on_commit_callbacks)
    assert tasks.deliver(note.pk) == "sent"
    [received] = smtp_server.messages
    moved_game.refresh_from_db()
    in_utc = moved_game.deadline.astimezone(UTC)
    text = received.get_body(("plain",)).get_content()
    assert f"(until {date_format(in_utc, 'DATETIME_FORMAT')} UTC)" in text
