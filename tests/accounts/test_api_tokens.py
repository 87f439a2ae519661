"""Personal access tokens of the API: made (the page, the command), stored hashed,
listed, revoked, refused to anyone but an open player."""

from __future__ import annotations

import datetime as dt
import hashlib
import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import errors, tokens
from accounts.models import ApiToken, GuestIdentity
from accounts.services import revoke_access


def test_a_token_is_stored_as_its_digest_only(alice):
    token, text = tokens.create_token(player=alice, description="my bot", scopes=["board:play"])

    assert text.startswith("lip_") and len(text) == 28
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.digest == hashlib.sha256(text.encode()).hexdigest()
    assert text not in {str(value) for value in ApiToken.objects.values_list().get()}


def test_each_token_is_new(alice):
    texts = {tokens.create_token(player=alice, description="x", scopes=[])[1] for _ in range(5)}
    assert len(texts) == 5


def test_a_token_is_used_with_its_player_and_scopes(alice):
    _token, text = tokens.create_token(
        player=alice, description="x", scopes=["challenge:read", "board:play"]
    )

    use = tokens.use_token(text)

    assert use.player == alice
    assert use.scopes == {"challenge:read", "board:play"}


def test_using_a_token_marks_it_used_once_a_minute(alice):
    token, text = tokens.create_token(player=alice, description="x", scopes=[])
    now = timezone.now()
    tokens.use_token(text, now=now)
    tokens.use_token(text, now=now + dt.timedelta(seconds=30))
    assert ApiToken.objects.get(pk=token.pk).last_used_at == now
    tokens.use_token(text, now=now + dt.timedelta(seconds=61))
    assert ApiToken.objects.get(pk=token.pk).last_used_at == now + dt.timedelta(seconds=61)


@pytest.mark.parametrize("text", ["", "lip_nothing", "x" * 5000, "lip_\u00e9\u00e9", "\ud800"])
def test_an_unknown_token_is_refused(alice, text):
    with pytest.raises(errors.NoSuchToken):
        tokens.use_token(text)


def test_a_revoked_token_is_refused(alice):
    token, text = tokens.create_token(player=alice, description="x", scopes=[])

    tokens.revoke_token(player=alice, token_id=token.pk)

    with pytest.raises(errors.NoSuchToken):
        tokens.use_token(text)


def test_a_player_cannot_revoke_anothers_token(alice, bob):
    token, text = tokens.create_token(player=alice, description="x", scopes=[])

    with pytest.raises(errors.NoSuchToken):
        tokens.revoke_token(player=bob, token_id=token.pk)
    assert tokens.use_token(text).player == alice


def test_a_closed_account_s_token_stops_working(alice):
    _token, text = tokens.create_token(player=alice, description="x", scopes=[])

    revoke_access(player=alice)

    with pytest.raises(errors.UserNotFound):
        tokens.use_token(text)


def test_a_token_stops_working_when_its_player_becomes_staff(alice):
    _token, text = tokens.create_token(player=alice, description="x", scopes=[])
    alice.is_staff = True
    alice.save()

    with pytest.raises(errors.UserNotFound):
        tokens.use_token(text)


def test_staff_and_closed_accounts_and_guests_get_no_token(make_player):
    staff = make_player("admin1", is_staff=True)
    closed = make_player("gone", is_active=False)
    guest = make_player("nick@distribuido")
    GuestIdentity.objects.create(player=guest, gateway="distribuido", name="nick")
    for player in (staff, closed, guest):
        with pytest.raises(errors.TokenRefused):
            tokens.create_token(player=player, description="x", scopes=[])
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("scopes", [["board:play", "web:mod"], ["BOARD:PLAY"], [""]])
def test_an_unknown_scope_is_refused(alice, scopes):
    with pytest.raises(errors.UnknownScope):
        tokens.create_token(player=alice, description="x", scopes=scopes)


@pytest.mark.parametrize("description", ["", "   ", "x" * 101])
def test_a_description_must_say_something_short(alice, description):
    with pytest.raises(errors.TokenRefused):
        tokens.create_token(player=alice, description=description, scopes=[])


# --------------------------------------------------------------------------- the page


@pytest.fixture
def as_alice(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_the_page_makes_a_token_and_shows_it_once(as_alice, alice):
    response = as_alice.post(
        reverse("api_token_create"),
        {"description": "board app", "scopes": ["board:play", "challenge:read"]},
    )

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    text = response.context["new_token"]
    assert text in response.content.decode()
    again = as_alice.get(reverse("preferences")).content.decode()
    assert text not in again
    assert "board app" in again and "challenge:read, board:play" in again
    assert "never used" in again
    assert tokens.use_token(text).scopes == {"board:play", "challenge:read"}


def test_the_page_lists_when_a_token_was_last_used(as_alice, alice):
    _token, text = tokens.create_token(player=alice, description="used one", scopes=[])
    tokens.use_token(text)

    html = as_alice.get(reverse("preferences")).content.decode()

    assert "never used" not in html and "last used" in html


@pytest.mark.parametrize(
    "form",
    [
        {"description": "", "scopes": ["board:play"]},
        {"description": "x" * 101},
        {"description": "ok", "scopes": ["web:mod"]},
        {"description": "ok", "scopes": ["\u0000"]},
    ],
)
def test_the_page_refuses_a_bad_token_form_and_keeps_what_was_typed(as_alice, form):
    response = as_alice.post(reverse("api_token_create"), form)

    assert response.status_code == 400
    assert not ApiToken.objects.exists()
    assert response.context["token_form"].errors
    assert response.context["new_token"] == ""


def test_the_page_revokes_a_token(as_alice, alice):
    token, text = tokens.create_token(player=alice, description="x", scopes=[])

    response = as_alice.post(reverse("api_token_revoke", args=[token.pk]))

    assert response["Location"] == reverse("preferences")
    with pytest.raises(errors.NoSuchToken):
        tokens.use_token(text)


def test_the_page_cannot_revoke_anothers_token(as_alice, bob):
    token, text = tokens.create_token(player=bob, description="x", scopes=[])

    as_alice.post(reverse("api_token_revoke", args=[token.pk]))

    assert tokens.use_token(text).player == bob


def test_token_pages_need_a_login_and_a_post(client, alice, db):
    assert client.post(reverse("api_token_create"), {"description": "x"}).status_code == 302
    assert not ApiToken.objects.exists()
    as_alice = Client()
    as_alice.force_login(alice)
    assert as_alice.get(reverse("api_token_create")).status_code == 405


# --------------------------------------------------------------------------- the command


def test_the_command_prints_the_token_last_with_every_scope(alice):
    out = io.StringIO()

    call_command("create_api_token", "alice", stdout=out)

    text = out.getvalue().splitlines()[-1]
    assert tokens.use_token(text).scopes == set(tokens.SCOPES)


def test_the_command_gives_only_the_scopes_named(alice):
    out = io.StringIO()

    call_command(
        "create_api_token", "alice", "--scope", "bot:play", "--scope", "challenge:write",
        stdout=out,
    )

    text = out.getvalue().splitlines()[-1]
    assert tokens.use_token(text).scopes == {"bot:play", "challenge:write"}


def test_the_command_refuses_an_unknown_player_or_scope(alice):
    with pytest.raises(CommandError):
        call_command("create_api_token", "nobody", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("create_api_token", "alice", "--scope", "web:mod", stdout=io.StringIO())
    assert not ApiToken.objects.exists()
