"""The demo seed that README command (a) runs on first start."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpRequest

from accounts import services as accounts
from accounts.models import SubscriptionRequest
from ajedrez import demo
from games.models import Challenge, Game

User = get_user_model()


@pytest.fixture
def credentials_file(settings, tmp_path):
    settings.DEMO_CREDENTIALS_FILE = tmp_path / "demo-admin"
    return settings.DEMO_CREDENTIALS_FILE


def test_seed_creates_a_working_superuser_login(client, credentials_file, db):
    credentials = demo.seed()
    assert client.login(
        request=HttpRequest(), username="admin", password=credentials.admin_password
    )
    assert User.objects.get(username="admin").is_superuser


def test_seed_creates_players_who_can_log_in(client, credentials_file, db):
    credentials = demo.seed()
    for username in credentials.players:
        assert client.login(
            request=HttpRequest(), username=username, password=credentials.player_password
        )


def test_seed_creates_games_in_progress_and_a_finished_one(credentials_file, db):
    demo.seed()
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 2
    finished = Game.objects.get(status=Game.Status.FINISHED)
    assert (finished.result, finished.termination) == ("1-0", "checkmate")


def test_seed_leaves_a_request_and_a_challenge_to_answer(credentials_file, db):
    demo.seed()
    assert SubscriptionRequest.objects.get(username="frank").status == "pending"
    assert Challenge.objects.filter(status=Challenge.Status.PENDING).count() == 1


def test_seeding_twice_changes_nothing(credentials_file, db):
    first = demo.seed()
    counts = (User.objects.count(), Game.objects.count(), Challenge.objects.count())
    second = demo.seed()
    assert second.admin_password == first.admin_password
    assert (User.objects.count(), Game.objects.count(), Challenge.objects.count()) == counts


def test_lost_credentials_file_resets_the_admin_password(client, credentials_file, db):
    first = demo.seed()
    credentials_file.unlink()
    second = demo.seed()
    assert second.admin_password != first.admin_password
    assert client.login(request=HttpRequest(), username="admin", password=second.admin_password)


def test_seed_demo_command_prints_the_admin_login(credentials_file, db, capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    password = credentials_file.read_text().strip()
    assert f"admin / {password}" in out


def test_a_seed_interrupted_after_some_players_completes_on_the_next_start(
    credentials_file, db
):
    demo.ensure_admin()
    made = accounts.request_subscription(username="alice", password=demo.PLAYER_PASSWORD)
    accounts.approve_subscription(request_id=made.pk, admin=None)
    accounts.request_subscription(username="bob", password=demo.PLAYER_PASSWORD)
    demo.seed()
    assert set(User.objects.filter(is_superuser=False).values_list("username", flat=True)) == set(
        demo.PLAYERS
    )
    assert Game.objects.count() == 3
    assert SubscriptionRequest.objects.get(username="frank").status == "pending"


def test_the_seed_notifies_but_queues_no_mail(credentials_file, transactional_db):
    """Real commits (after-commit callbacks run where they would in production)."""
    from django_tasks_db.models import DBTaskResult

    from games.models import Notification

    demo.seed()
    # The bell shows the demo's events; the console is not flooded with their mail.
    assert Notification.objects.exists()
    assert not DBTaskResult.objects.exists()
