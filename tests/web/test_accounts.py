"""Account pages: subscription request, login, logout, password change, unsubscribe."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from accounts import services as accounts
from accounts.models import SubscriptionRequest
from games import services
from games.models import Challenge, Game
from tests.conftest import PASSWORD, pbkdf2_hash

User = get_user_model()

NEW_PASSWORD = "queen-gambit-77"



def subscription(**fields: str) -> dict[str, str]:
    data = {
        "username": "frank",
        "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
        "comment": "Frank Franco",
        "email": "frank@example.org",
    }
    data.update(fields)
    return data


def text(response) -> str:
    return response.content.decode()


# --------------------------------------------------------------------------- subscribe


def test_subscription_request_is_recorded_and_waits_for_approval(client, db):
    response = client.post(reverse("subscribe"), subscription(), follow=True)

    assert response.redirect_chain[-1][0] == reverse("subscribe_done")
    assert "Waiting for approval" in text(response)
    assert "frank" in text(response)
    request = SubscriptionRequest.objects.get(username="frank")
    assert request.status == SubscriptionRequest.Status.PENDING
    assert request.comment == "Frank Franco"
    assert request.email == "frank@example.org"
    assert not User.objects.filter(username="frank").exists()


def test_a_logged_in_player_is_sent_from_the_subscription_form_to_the_dashboard(client, alice):
    client.force_login(alice)

    response = client.get(reverse("subscribe"))

    assert response["Location"] == reverse("dashboard")


@pytest.mark.parametrize("bad_name", ["fr:ank", "fr#ank", "fr,ank", "frank smith", "x" * 31])
def test_subscription_with_a_reserved_character_in_the_name_is_refused(client, db, bad_name):
    response = client.post(reverse("subscribe"), subscription(username=bad_name))

    assert response.status_code == 200
    form = response.context["form"]
    assert "username" in form.errors
    # What was typed stays in the form, so it can be corrected.
    assert f'value="{bad_name}"' in text(response)
    assert 'value="Frank Franco"' in text(response)
    assert not SubscriptionRequest.objects.exists()


def test_subscription_with_a_taken_name_is_refused(client, alice):
    response = client.post(reverse("subscribe"), subscription(username="Alice"))

    assert "That user name is taken." in response.context["form"].errors["username"]
    assert 'value="Alice"' in text(response)
    assert not SubscriptionRequest.objects.exists()


def test_subscription_with_a_name_already_requested_is_refused(client, db):
    accounts.request_subscription(username="frank", password="first-pass-1")

    response = client.post(reverse("subscribe"), subscription())

    errors = response.context["form"].errors["username"]
    assert "A request for that user name is already waiting for approval." in errors
    assert SubscriptionRequest.objects.count() == 1


def test_subscription_with_mismatched_passwords_is_refused(client, db):
    response = client.post(reverse("subscribe"), subscription(password2="something-else"))

    assert "The two passwords do not match." in response.context["form"].errors["password2"]
    assert 'value="frank"' in text(response)
    assert 'value="frank@example.org"' in text(response)
    assert not SubscriptionRequest.objects.exists()


def test_subscription_with_empty_fields_names_each_missing_field(client, db):
    response = client.post(
        reverse("subscribe"), {"username": "", "password1": "", "password2": "", "comment": "hi"}
    )

    form = response.context["form"]
    assert set(form.errors) == {"username", "password1", "password2"}
    assert 'value="hi"' in text(response)
    assert not SubscriptionRequest.objects.exists()


def test_subscription_shows_every_password_problem_at_once(client, db):
    # Too short, too common and mistyped the second time: three problems, one submit.
    response = client.post(
        reverse("subscribe"), subscription(password1="12345", password2="54321")
    )

    errors = response.context["form"].errors.as_data()
    assert {e.code for e in errors["password1"]} == {"password_too_short", "password_too_common"}
    assert [e.message for e in errors["password2"]] == ["The two passwords do not match."]
    page = text(response)
    assert "too short" in page and "too common" in page and "do not match" in page
    assert not SubscriptionRequest.objects.exists()


def test_subscription_with_a_too_short_password_is_refused(client, db):
    response = client.post(reverse("subscribe"), subscription(password1="abc", password2="abc"))

    assert "password1" in response.context["form"].errors
    assert not SubscriptionRequest.objects.exists()


def test_subscription_with_an_invalid_email_is_refused(client, db):
    response = client.post(reverse("subscribe"), subscription(email="not-an-address"))

    assert "email" in response.context["form"].errors
    assert 'value="not-an-address"' in text(response)
    assert not SubscriptionRequest.objects.exists()


def _subscribe_as(client: Client, username: str):
    return client.post(reverse("subscribe"), subscription(username=username))


def test_a_sixth_subscription_request_from_one_address_in_an_hour_gets_429(client, db):
    # The default limit: five an hour from one address, whatever the names.
    for n in range(5):
        assert _subscribe_as(client, f"frank{n}").status_code == 302
    response = _subscribe_as(client, "frank5")

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 3600
    assert "Too many subscription requests have come from your address." in text(response)
    assert "Please try again in 60 minutes." in text(response)
    # The site's layout, with what was typed kept for the retry.
    assert 'id="language-form"' in text(response)
    assert 'value="frank5"' in text(response)
    assert SubscriptionRequest.objects.count() == 5
    assert not SubscriptionRequest.objects.filter(username="frank5").exists()


def test_the_subscription_limit_is_read_from_the_settings_at_each_request(client, settings, db):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 1
    assert _subscribe_as(client, "frank").status_code == 302
    assert _subscribe_as(client, "gina").status_code == 429
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 0  # no limit
    assert _subscribe_as(client, "gina").status_code == 302


def test_another_address_keeps_its_own_subscription_allowance(client, settings, db):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 1
    assert _subscribe_as(client, "frank").status_code == 302
    assert _subscribe_as(client, "gina").status_code == 429
    elsewhere = Client(REMOTE_ADDR="203.0.113.7")
    assert _subscribe_as(elsewhere, "gina").status_code == 302


def test_refused_forms_do_not_use_up_the_subscription_allowance(client, settings, db):
    # Only a request that reaches the service (and its password hash) counts.
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 1
    for _ in range(3):
        response = client.post(reverse("subscribe"), subscription(password2="different"))
        assert response.status_code == 200
    assert _subscribe_as(client, "frank").status_code == 302


def test_the_subscription_limit_is_explained_in_spanish(settings, db):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 1
    client = Client(headers={"accept-language": "es"})
    _subscribe_as(client, "frank")
    response = _subscribe_as(client, "gina")

    assert response.status_code == 429
    assert "Han llegado demasiadas solicitudes de suscripción desde tu dirección." in text(
        response
    )
    assert "Vuelve a intentarlo dentro de 60 minutos." in text(response)


def test_subscription_form_needs_the_csrf_token(db):
    client = Client(enforce_csrf_checks=True)

    response = client.post(reverse("subscribe"), subscription())

    assert response.status_code == 403
    assert not SubscriptionRequest.objects.exists()


# --------------------------------------------------------------------------- login


def login(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_a_pending_request_cannot_log_in_and_is_told_it_awaits_approval(client, db):
    accounts.request_subscription(username="frank", password=NEW_PASSWORD)

    response = login(client, "frank", NEW_PASSWORD)

    assert response.status_code == 200
    assert "waiting for an administrator&#x27;s approval" in text(response)
    assert 'value="frank"' in text(response)
    assert "_auth_user_id" not in client.session


def test_a_rejected_request_cannot_log_in_and_is_told_it_was_rejected(client, db):
    request = accounts.request_subscription(username="frank", password=NEW_PASSWORD)
    accounts.reject_subscription(request_id=request.pk, admin=None)

    response = login(client, "frank", NEW_PASSWORD)

    assert "was rejected" in text(response)
    assert "_auth_user_id" not in client.session


def test_a_pending_request_with_the_wrong_password_gets_the_plain_error(client, db):
    accounts.request_subscription(username="frank", password=NEW_PASSWORD)

    response = login(client, "frank", "not-the-password")

    assert "Wrong user name or password." in text(response)
    assert "approval" not in text(response)


def test_an_approved_request_logs_in_with_the_requested_password(client, db):
    request = accounts.request_subscription(username="frank", password=NEW_PASSWORD)
    accounts.approve_subscription(request_id=request.pk, admin=None)

    response = login(client, "frank", NEW_PASSWORD)

    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard")
    assert int(client.session["_auth_user_id"]) == User.objects.get(username="frank").pk


def test_login_with_a_wrong_password_keeps_the_name_and_shows_the_error(client, alice):
    response = login(client, "alice", "wrong")

    assert "Wrong user name or password." in text(response)
    assert 'value="alice"' in text(response)
    assert "_auth_user_id" not in client.session


def test_login_with_empty_fields_names_each_missing_field(client, db):
    response = login(client, "", "")

    assert set(response.context["form"].errors) == {"username", "password"}


def test_a_pbkdf2_password_is_rehashed_with_argon2_at_the_next_login(
    client, alice, production_hashers
):
    User.objects.filter(pk=alice.pk).update(password=pbkdf2_hash(PASSWORD))

    response = login(client, "alice", PASSWORD)

    assert response.status_code == 302
    assert User.objects.get(pk=alice.pk).password.startswith("argon2$argon2id$")
    # The session was made with the new hash, so the upgrade does not log it out.
    assert client.get(reverse("dashboard")).status_code == 200


def test_a_wrong_password_leaves_an_old_hash_as_it_was(client, alice, production_hashers):
    old = pbkdf2_hash(PASSWORD)
    User.objects.filter(pk=alice.pk).update(password=old)

    login(client, "alice", "wrong")

    assert User.objects.get(pk=alice.pk).password == old


# --------------------------------------------------------------------------- logout


def test_logout_by_get_is_refused(client, alice):
    client.force_login(alice)

    response = client.get(reverse("logout"))

    assert response.status_code == 405
    assert "_auth_user_id" in client.session


def test_logout_by_post_ends_the_session(client, alice):
    client.force_login(alice)

    response = client.post(reverse("logout"))

    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


# --------------------------------------------------------------------------- password


def test_password_change_with_a_wrong_old_password_is_refused(client, alice):
    client.force_login(alice)

    response = client.post(
        reverse("password_change"),
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert "old_password" in response.context["form"].errors
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_password_change_with_mismatched_new_passwords_is_refused(client, alice):
    client.force_login(alice)

    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": "other-1"},
    )

    assert "new_password2" in response.context["form"].errors
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_password_change_sets_the_new_password(client, alice):
    client.force_login(alice)

    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response["Location"] == reverse("password_change_done")
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)


# --------------------------------------------------------------------------- unsubscribe


def test_unsubscribe_page_warns_that_active_games_are_lost(client, alice, game):
    client.force_login(alice)

    response = client.get(reverse("unsubscribe"))

    assert "games in progress" in text(response).lower()
    # Named by its players, the number beside them.
    assert f"alice – bob <small class=\"text-body-secondary\">{game.public_id}</small>" in text(
        response
    )


def test_unsubscribe_with_a_wrong_password_is_refused_and_nothing_changes(client, alice, game):
    client.force_login(alice)

    response = client.post(reverse("unsubscribe"), {"password": "wrong", "confirm": "on"})

    assert response.status_code == 200
    assert "Wrong password." in response.context["form"].errors["password"]
    alice.refresh_from_db()
    game.refresh_from_db()
    assert alice.is_active
    assert game.is_active
    assert "_auth_user_id" in client.session


def test_unsubscribe_without_the_confirmation_box_is_refused(client, alice):
    client.force_login(alice)

    response = client.post(reverse("unsubscribe"), {"password": PASSWORD})

    assert "confirm" in response.context["form"].errors
    alice.refresh_from_db()
    assert alice.is_active


def test_unsubscribe_closes_the_account_and_loses_the_games(
    client, alice, bob, carol, game, play
):
    play(game, "e4", "e5")  # before one's first move, leaving aborts instead
    services.challenge(challenger=alice, challenged=carol)
    client.force_login(alice)

    response = client.post(reverse("unsubscribe"), {"password": PASSWORD, "confirm": "on"})

    assert response.status_code == 200
    assert "Subscription cancelled" in text(response)
    alice.refresh_from_db()
    game.refresh_from_db()
    assert not alice.is_active
    assert game.status == Game.Status.FINISHED
    assert game.result == Game.Result.BLACK_WINS
    assert not Challenge.objects.filter(status=Challenge.Status.PENDING).exists()
    assert "_auth_user_id" not in client.session
    assert not Client().login(request=HttpRequest(), username="alice", password=PASSWORD)


def test_unsubscribe_needs_a_login(client, db):
    response = client.get(reverse("unsubscribe"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# --------------------------------------------------------------------------- layout


def test_the_nav_links_to_the_admin_only_for_staff(client, alice, make_player):
    staff = make_player("root", is_staff=True)
    client.force_login(alice)
    assert 'href="/admin/"' not in text(client.get(reverse("dashboard")))

    client.force_login(staff)

    assert 'href="/admin/"' in text(client.get(reverse("dashboard")))


def test_the_page_names_the_player_for_scripts_and_logs_out_by_post(client, alice):
    client.force_login(alice)

    html = text(client.get(reverse("dashboard")))

    assert '<body data-user="alice"' in html
    assert f'<form action="{reverse("logout")}" method="post"' in html


def test_a_visitor_is_offered_login_and_subscription(client, db):
    html = text(client.get(reverse("login")))

    assert '<body data-user=""' in html
    assert f'href="{reverse("subscribe")}"' in html
    assert f'href="{reverse("dashboard")}"' not in html


@pytest.mark.parametrize(
    "value",
    ["0123456789abcdef\x00zz", "ñandú" * 8, "x" * 5000, "short", "a b c d e f g h", "%00" * 12],
    ids=["nul", "unicode", "huge", "short", "spaces", "escapes"],
)
def test_a_session_cookie_no_session_can_have_is_no_session(client, alice, value):
    # With a NUL, PostgreSQL refused the session's lookup: every page answered 500.
    client.cookies["sessionid"] = value
    assert client.get(reverse("login")).status_code == 200
    assert client.get(reverse("preferences"))["Location"].startswith(reverse("login"))
    # The same client logs in as ever, with a session of its own.
    assert client.post(
        reverse("login"), {"username": alice.username, "password": PASSWORD}
    ).status_code == 302
    assert client.get(reverse("preferences")).status_code == 200
    assert client.cookies["sessionid"].value != value
