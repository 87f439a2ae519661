"""ESPOL PASS under the site's login policy: Argon2 hashes, and one lock-out for the web and
ESPOL together."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from tests.conftest import PASSWORD, pbkdf2_hash

User = get_user_model()


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
