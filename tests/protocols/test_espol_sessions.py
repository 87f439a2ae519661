"""An ESPOL login lasts only while the account is open and its password unchanged."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from tests.conftest import PASSWORD
from tests.protocols.conftest import code_of

User = get_user_model()


def test_a_password_change_elsewhere_ends_the_tcp_login(login, alice):
    client = login(alice)
    assert code_of(client.send("SRNK")) == 103
    user = User.objects.get(pk=alice.pk)
    user.set_password("changed-on-the-web-42")
    user.save()
    # The next command finds the login stale: log in again, with the new password.
    assert code_of(client.send("SRNK")) == 803
    assert code_of(client.send("USER:alice")) == 101
    assert code_of(client.send(f"PASS:{PASSWORD}")) == 815
    assert code_of(client.send("USER:alice")) == 101
    assert code_of(client.send("PASS:changed-on-the-web-42")) == 102
    assert code_of(client.send("SRNK")) == 103


def test_an_unchanged_password_keeps_the_tcp_login(login, alice):
    client = login(alice)
    User.objects.filter(pk=alice.pk).update(first_name="Alicia")
    assert code_of(client.send("SRNK")) == 103
