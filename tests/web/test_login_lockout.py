"""Failed logins on the web and in the admin: counted per user name and address
(django-axes), locked out after the limit, with a page that says so, and logged."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import AsyncClient, Client
from django.urls import reverse
from django.utils import timezone

from tests.conftest import PASSWORD

User = get_user_model()

HOME = "203.0.113.7"
GUESSER = "198.51.100.9"


def text(response) -> str:
    return response.content.decode()


def login(client: Client, username: str, password: str, *, address: str = GUESSER, url=None):
    return client.post(
        url or reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def fail_until_locked(client: Client, settings, username: str, **where) -> list:
    """Wrong passwords up to the limit; the answers."""
    return [
        login(client, username, f"wrong-{n}", **where) for n in range(settings.AXES_FAILURE_LIMIT)
    ]


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


# --------------------------------------------------------------------------- the site's login


def test_the_web_login_locks_out_a_name_from_an_address_after_the_failure_limit(
    client, settings, alice
):
    answers = fail_until_locked(client, settings, "alice")

    assert [r.status_code for r in answers[:-1]] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert all("Wrong user name or password." in text(r) for r in answers[:-1])
    assert answers[-1].status_code == 429
    # Locked: the right password is refused too, without being checked.
    response = login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in text(response)
    assert not logged_in(client)


def test_an_unknown_name_is_locked_out_like_any_other(client, settings, db):
    # Answering differently would tell which names exist.
    answers = fail_until_locked(client, settings, "nobody")

    assert answers[-1].status_code == 429
    assert login(client, "nobody", PASSWORD).status_code == 429


def test_the_locked_out_name_still_logs_in_from_another_address(client, settings, alice):
    fail_until_locked(client, settings, "alice")

    response = login(Client(), "alice", PASSWORD, address=HOME)

    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard")


def test_other_names_still_log_in_from_the_locked_out_address(client, settings, alice, bob):
    fail_until_locked(client, settings, "alice")

    assert login(Client(), "bob", PASSWORD).status_code == 302


def test_failures_below_the_limit_do_not_lock_and_a_login_forgets_them(
    client, settings, alice
):
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "alice", f"wrong-{n}")
    assert login(Client(), "alice", PASSWORD).status_code == 302
    # The count started again with that login.
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "alice", f"wrong-{n}").status_code == 200
    assert login(Client(), "alice", PASSWORD).status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, settings, alice):
    from axes.models import AccessAttempt

    fail_until_locked(client, settings, "alice")
    assert login(client, "alice", PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timezone.timedelta(seconds=1)
    )

    assert login(client, "alice", PASSWORD).status_code == 302


def test_an_ipv6_client_is_counted_by_its_64(client, settings, alice):
    for n in range(settings.AXES_FAILURE_LIMIT):
        # Another address of the same /64 for every guess.
        login(client, "alice", "wrong", address=f"2001:db8:1:2::{n + 1:x}")

    assert login(Client(), "alice", PASSWORD, address="2001:db8:1:2:ffff::9").status_code == 429
    assert login(Client(), "alice", PASSWORD, address="2001:db8:1:3::1").status_code == 302


# --------------------------------------------------------------------------- the admin's login


@pytest.fixture
def staff(make_player):
    return make_player("root", is_staff=True, is_superuser=True)


def admin_login(client: Client, password: str, *, address: str = GUESSER):
    return login(client, "root", password, address=address, url=reverse("admin:login"))


def test_the_admin_login_locks_out_a_name_from_an_address_too(client, settings, staff):
    answers = [admin_login(client, "wrong") for _ in range(settings.AXES_FAILURE_LIMIT)]

    assert [r.status_code for r in answers[:-1]] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert answers[-1].status_code == 429
    response = admin_login(client, PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in text(response)
    assert not logged_in(client)
    elsewhere = Client()
    assert admin_login(elsewhere, PASSWORD, address=HOME).status_code == 302
    assert elsewhere.get(reverse("admin:index")).status_code == 200


def test_failures_at_the_site_and_the_admin_add_up(client, settings, staff):
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "root", f"wrong-{n}")

    assert admin_login(client, "wrong").status_code == 429


# --------------------------------------------------------------------------- the page, the log


def test_the_lockout_page_is_in_the_sites_layout_and_says_how_long_to_wait(
    client, settings, alice
):
    settings.AXES_COOLOFF_TIME = timezone.timedelta(minutes=15)
    fail_until_locked(client, settings, "alice")

    response = login(client, "alice", PASSWORD)

    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    html = text(response)
    assert "<title>Too many failed logins · Ajedrez</title>" in html
    assert 'class="navbar' in html  # the site's own layout, not a bare text
    assert "refused for 15 minutes" in html
    assert "Logins from other addresses are not affected" in html


def test_the_lockout_page_is_in_spanish_for_a_spanish_browser(settings, alice):
    settings.AXES_COOLOFF_TIME = timezone.timedelta(minutes=1)
    client = Client(headers={"accept-language": "es"})
    fail_until_locked(client, settings, "alice")

    html = text(login(client, "alice", PASSWORD))

    assert '<html lang="es"' in html
    assert "Demasiados inicios de sesión fallidos" in html
    assert "durante 1 minuto" in html
    assert "Too many failed logins" not in html


def test_failures_and_the_lockout_are_logged_with_the_name_and_address(
    client, settings, alice, caplog
):
    caplog.set_level(logging.WARNING)
    fail_until_locked(client, settings, "alice")

    lines = [r.getMessage() for r in caplog.records if r.name.startswith("axes")]
    failures = [line for line in lines if "login failure by" in line]
    assert len(failures) == settings.AXES_FAILURE_LIMIT
    assert all('username: "alice"' in line and GUESSER in line for line in failures)
    assert any("Locking out" in line and 'username: "alice"' in line for line in lines)
    assert not any("wrong-" in line for line in lines)


def test_the_project_logging_shows_login_failures_whatever_log_level_says(settings):
    from ajedrez import settings as project_settings

    assert project_settings.LOGGING["loggers"]["axes"]["level"] == "WARNING"


@pytest.mark.django_db(transaction=True)
async def test_the_lockout_page_is_served_under_asgi_too(settings, alice):
    # Daphne serves the site through the middleware's asynchronous path.
    client = AsyncClient()
    for n in range(settings.AXES_FAILURE_LIMIT):
        await client.post(reverse("login"), {"username": "alice", "password": f"wrong-{n}"})

    response = await client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    # The views ran on asgiref's thread for synchronous code: close its connection, or
    # PostgreSQL cannot drop the test database at the end.
    await sync_to_async(connections.close_all)()

    assert response.status_code == 429
    assert "Too many failed logins" in text(response)


def test_a_pending_subscriber_asking_with_her_own_password_is_not_counted_as_a_guesser(
    client, settings, db
):
    from accounts import services as accounts

    accounts.request_subscription(username="frank", password=PASSWORD)
    # More times than the limit: each is told the request is waiting, none is a failure.
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = login(client, "frank", PASSWORD, address=HOME)
        assert response.status_code == 200
        assert "waiting for an administrator" in text(response)
    # A wrong password for the same name is still counted, up to the lock-out.
    answers = fail_until_locked(client, settings, "frank", address=HOME)
    assert answers[-1].status_code == 429


def test_a_pending_subscribers_right_password_after_wrong_ones_does_not_lock_her_out(
    client, settings, db
):
    # Four wrong guesses, then her own password: the right one is not the fifth failure.
    from axes.models import AccessAttempt

    from accounts import services as accounts

    accounts.request_subscription(username="frank", password=PASSWORD)
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "frank", f"wrong-{n}", address=HOME).status_code == 200
    response = login(client, "frank", PASSWORD, address=HOME)
    assert response.status_code == 200
    assert "waiting for an administrator" in text(response)
    # And the wrong guesses stay counted: a right request password is no login.
    assert AccessAttempt.objects.get(username="frank").failures_since_start == (
        settings.AXES_FAILURE_LIMIT - 1
    )
    assert login(client, "frank", "wrong-again", address=HOME).status_code == 429


def test_a_rejected_subscribers_own_password_is_not_counted_either(client, settings, db):
    from axes.models import AccessAttempt

    from accounts import services as accounts

    made = accounts.request_subscription(username="frank", password=PASSWORD)
    accounts.reject_subscription(request_id=made.pk, admin=None)
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = login(client, "frank", PASSWORD, address=HOME)
        assert "was rejected by an administrator" in text(response)
    assert not AccessAttempt.objects.exists()


def test_a_pending_subscribers_password_at_the_admin_login_is_not_counted(
    client, settings, db
):
    from axes.models import AccessAttempt

    from accounts import services as accounts

    accounts.request_subscription(username="frank", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = login(client, "frank", PASSWORD, address=HOME, url=reverse("admin:login"))
        assert response.status_code == 200
    assert not AccessAttempt.objects.exists()
    assert login(client, "frank", PASSWORD, address=HOME).status_code == 200


def test_a_locked_out_name_is_not_told_its_request_is_pending(client, settings, db):
    # Locked out, the password is not checked: not even against the request's, which a
    # guesser could otherwise go on trying.
    from accounts import services as accounts

    accounts.request_subscription(username="frank", password=PASSWORD)
    fail_until_locked(client, settings, "frank", address=GUESSER)
    response = login(client, "frank", PASSWORD, address=GUESSER)
    assert response.status_code == 429
    assert "waiting for an administrator" not in text(response)
