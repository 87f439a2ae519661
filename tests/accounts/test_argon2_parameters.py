"""Argon2id at OWASP's parameters (9 MiB, 4 iterations, parallelism 1), and hashes made
with other parameters (Django's heavier defaults, ours of before) re-made at the next
login, at every door that checks a password."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.hashers import Argon2PasswordHasher as DjangoArgon2
from django.contrib.auth.hashers import identify_hasher, make_password
from django.test import Client
from django.urls import reverse

from accounts.hashers import Argon2PasswordHasher

pytestmark = pytest.mark.django_db

PASSWORD = "tablero-de-1995"
OWASP = "m=9216,t=4,p=1"


def parameters(encoded: str) -> str:
    return encoded.split("$")[3]


def test_new_hashes_use_owasps_parameters(production_hashers):
    encoded = make_password(PASSWORD)
    assert encoded.startswith("argon2$argon2id$")
    assert parameters(encoded) == OWASP
    assert isinstance(identify_hasher(encoded), Argon2PasswordHasher)


@pytest.fixture
def old_hash_player(make_player, production_hashers):
    player = make_player("olga")
    # As Django's own Argon2 hasher made it: 100 MiB, parallelism 8.
    player.password = DjangoArgon2().encode(PASSWORD, DjangoArgon2().salt())
    player.save(update_fields=["password"])
    assert parameters(player.password) == "m=102400,t=2,p=8"
    return player


def test_an_old_hash_is_remade_at_a_login_on_the_site(old_hash_player):
    response = Client().post(
        reverse("login"), {"username": "olga", "password": PASSWORD}
    )
    assert response.status_code == 302
    old_hash_player.refresh_from_db()
    assert parameters(old_hash_player.password) == OWASP


def test_an_old_hash_is_remade_by_the_authentication_the_gateways_use(old_hash_player, rf):
    # ESPOL's PASS goes through accounts.throttling.check_login, which authenticates so.
    assert authenticate(rf.post("/"), username="olga", password=PASSWORD) == old_hash_player
    old_hash_player.refresh_from_db()
    assert parameters(old_hash_player.password) == OWASP


def test_a_wrong_password_leaves_an_old_hash_as_it_was(old_hash_player, rf):
    before = old_hash_player.password
    assert authenticate(rf.post("/"), username="olga", password="wrong") is None
    old_hash_player.refresh_from_db()
    assert old_hash_player.password == before


def test_a_hash_at_our_earlier_parameters_is_remade_too(make_player, production_hashers, rf):
    # 19 MiB × 2 iterations, the OWASP configuration used before the faster one here.
    class Earlier(DjangoArgon2):
        time_cost, memory_cost, parallelism = 2, 19 * 1024, 1

    player = make_player("olga")
    player.password = Earlier().encode(PASSWORD, Earlier().salt())
    player.save(update_fields=["password"])
    assert parameters(player.password) == "m=19456,t=2,p=1"
    assert authenticate(rf.post("/"), username="olga", password=PASSWORD) == player
    player.refresh_from_db()
    assert parameters(player.password) == OWASP
