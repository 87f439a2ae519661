"""ESPOL PASS under the site's login policy: Argon2 hashes, and one count of failed logins
per (user name, address) and one lock-out for the web and ESPOL together."""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD, pbkdf2_hash

User = get_user_model()

OTHER_ADDRESS = ("127.0.0.2", 0)


def web_login(username: str, password: str, *, address: str = "127.0.0.1"):
    return Client().post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def espol_answers(client, *passwords: str) -> list[int]:
    return [client.send(f"PASS:{password}").code for password in passwords]


def test_a_pbkdf2_password_is_rehashed_with_argon2_at_the_next_espol_login(
    connect, alice, production_hashers
):
    User.objects.filter(pk=alice.pk).update(password=pbkdf2_hash(PASSWORD))
    client = connect()
    assert client.send("USER:alice").code == 101

    assert client.send(f"PASS:{PASSWORD}").code == 102

    assert User.objects.get(pk=alice.pk).password.startswith("argon2$argon2id$")
    # The login was made with the new hash: the per-command check keeps it.
    assert client.send("SRNK").code == 103


def test_espol_failures_lock_the_name_out_of_the_web_from_that_address(
    connect, settings, alice
):
    limit = settings.AXES_FAILURE_LIMIT
    client = connect()
    client.send("USER:alice")

    answers = espol_answers(client, *(f"wrong-{n}" for n in range(limit)))

    # The failure that reaches the limit is answered as the lock-out it starts.
    assert answers == [815] * (limit - 1) + [402]
    assert web_login("alice", PASSWORD).status_code == 429
    assert web_login("alice", PASSWORD, address="127.0.0.2").status_code == 302


def test_web_failures_lock_the_name_out_of_espol_from_that_address(connect, settings, alice):
    for n in range(settings.AXES_FAILURE_LIMIT):
        web_login("alice", f"wrong-{n}")
    client = connect()
    client.send("USER:alice")

    reply = client.send(f"PASS:{PASSWORD}")

    assert reply.code == 402
    assert reply.text == (
        "too many failed logins for alice from your address; try again in "
        f"{int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)} min"
    )
    assert client.send("SRNK").code == 803
    elsewhere = connect(source_address=OTHER_ADDRESS)
    elsewhere.send("USER:alice")
    assert elsewhere.send(f"PASS:{PASSWORD}").code == 102


def test_failures_at_both_doors_add_up_to_one_lockout(connect, settings, alice):
    web_login("alice", "wrong-on-the-web")
    client = connect()
    client.send("USER:alice")
    answers = espol_answers(client, *(f"wrong-{n}" for n in range(settings.AXES_FAILURE_LIMIT - 2)))
    assert set(answers) == {815}

    assert web_login("alice", "wrong-again").status_code == 429
    assert client.send(f"PASS:{PASSWORD}").code == 402


def test_a_locked_out_name_leaves_the_session_and_other_names_alone(
    connect, settings, alice, bob
):
    client = connect()
    client.send("USER:alice")
    espol_answers(client, *(f"wrong-{n}" for n in range(settings.AXES_FAILURE_LIMIT)))

    assert client.send(f"PASS:{PASSWORD}").code == 402
    assert client.send("USER:bob").code == 101
    assert client.send(f"PASS:{PASSWORD}").code == 102
    assert client.send("SRNK").code == 103


def test_an_espol_login_forgets_the_names_failures_from_that_address(
    connect, settings, alice
):
    limit = settings.AXES_FAILURE_LIMIT
    assert [web_login("alice", f"wrong-{n}").status_code for n in range(limit - 1)] == [
        200
    ] * (limit - 1)
    client = connect()
    client.send("USER:alice")
    assert client.send(f"PASS:{PASSWORD}").code == 102

    answers = [web_login("alice", f"wrong-{n}").status_code for n in range(limit - 1)]

    assert answers == [200] * (limit - 1)
    assert web_login("alice", PASSWORD).status_code == 302


def test_a_staff_accounts_right_password_over_espol_is_refused_but_not_counted(
    connect, settings, make_player
):
    make_player("warden", is_staff=True)
    client = connect()
    client.send("USER:warden")

    answers = espol_answers(client, *[PASSWORD] * (settings.AXES_FAILURE_LIMIT + 1))

    assert set(answers) == {815}
    assert web_login("warden", PASSWORD).status_code == 302


def test_espol_failures_are_logged_with_the_name_the_address_and_the_door(
    connect, alice, caplog
):
    caplog.set_level(logging.WARNING)
    client = connect()
    client.send("USER:alice")
    client.send("PASS:wrong-Secret1")

    lines = [r.getMessage() for r in caplog.records if r.name.startswith("axes")]
    assert any(
        'username: "alice"' in line
        and 'ip_address: "127.0.0.1"' in line
        and 'user_agent: "ESPOL PASS"' in line
        for line in lines
    ), lines
    assert "Secret1" not in caplog.text


def test_a_pending_subscribers_right_password_over_espol_is_refused_but_not_counted(
    connect, settings, db
):
    from axes.models import AccessAttempt

    from accounts import services as accounts

    accounts.request_subscription(username="frank", password=PASSWORD)
    client = connect()
    client.send("USER:frank")
    answers = [client.send(f"PASS:{PASSWORD}") for _ in range(settings.AXES_FAILURE_LIMIT + 1)]
    # 815 as any login that is not (yet) an account, saying why; never the lock-out.
    assert {answer.code for answer in answers} == {815}
    assert "waiting for an administrator" in answers[-1].text
    assert not AccessAttempt.objects.exists()
    assert web_login("frank", "wrong").status_code == 200  # one failure, no lock-out
