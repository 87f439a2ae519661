"""The preferences page (seed 000 menus COLORES and PREFERENCIAS)."""

from __future__ import annotations

import re

from django.test import Client
from django.urls import reverse

from accounts.models import Preferences
from accounts.selectors import gateway_key_made_at, gateway_key_matches, preferences_of

CHANGED = {
    "board_theme": "blue",
    "piece_set": "cburnett",
    "orientation": "black",
    "show_status_bar": "on",
    # Unticked boxes are simply absent from a form submission.
}


def test_preferences_need_a_login(client, db):
    assert client.get(reverse("preferences"))["Location"].startswith(reverse("login"))


def test_preferences_page_shows_the_defaults_and_writes_nothing(as_alice, alice):
    response = as_alice.get(reverse("preferences"))

    assert response.status_code == 200
    shown = response.context["form"].instance
    assert shown.board_theme == Preferences.BoardTheme.BROWN
    assert shown.show_coordinates
    assert shown.confirm_moves
    assert 'name="confirm_moves"' in response.content.decode()
    # Reading never writes: a player who never saved has no stored row.
    assert not Preferences.objects.filter(player=alice).exists()


def test_saving_preferences_stores_them_for_the_player(as_alice, alice, bob):
    response = as_alice.post(reverse("preferences"), CHANGED)

    assert response["Location"] == reverse("preferences")
    stored = preferences_of(alice)
    assert stored.board_theme == "blue"
    assert stored.orientation == "black"
    assert not stored.show_coordinates
    assert not stored.sound
    assert stored.show_status_bar
    assert not stored.confirm_moves
    assert preferences_of(bob).board_theme == "brown"


def test_saved_preferences_show_as_chosen_on_the_page(as_alice, alice):
    as_alice.post(reverse("preferences"), CHANGED)

    html = as_alice.get(reverse("preferences")).content.decode()

    checked = sorted(
        (re.search(r'name="(\w+)"', tag)[1], re.search(r'value="(\w+)"', tag)[1])
        for tag in re.findall(r'<input type="radio"[^>]*>', html)
        if re.search(r"\bchecked\b", tag)
    )
    assert checked == [("board_theme", "blue"), ("orientation", "black")]


def test_an_unknown_board_colour_is_refused_and_nothing_changes(as_alice, alice):
    response = as_alice.post(reverse("preferences"), {**CHANGED, "board_theme": "purple"})

    assert response.status_code == 200
    assert "board_theme" in response.context["form"].errors
    stored = preferences_of(alice)
    assert stored.board_theme == "brown"
    assert stored.orientation == "auto"


def test_a_missing_orientation_is_refused_and_keeps_the_other_choices(as_alice, alice):
    data = {k: v for k, v in CHANGED.items() if k != "orientation"}

    response = as_alice.post(reverse("preferences"), data)

    assert "orientation" in response.context["form"].errors
    assert response.context["form"]["board_theme"].value() == "blue"
    assert preferences_of(alice).board_theme == "brown"


def test_restore_defaults_puts_every_preference_back(as_alice, alice):
    as_alice.post(reverse("preferences"), CHANGED)

    response = as_alice.post(reverse("preferences_restore"))

    assert response["Location"] == reverse("preferences")
    stored = preferences_of(alice)
    assert (stored.board_theme, stored.orientation) == ("brown", "auto")
    assert stored.show_coordinates and stored.sound and stored.show_status_bar


def test_restore_defaults_refuses_get(as_alice, alice):
    as_alice.post(reverse("preferences"), CHANGED)

    response = as_alice.get(reverse("preferences_restore"))

    assert response.status_code == 405
    assert preferences_of(alice).board_theme == "blue"


def test_preferences_need_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(reverse("preferences"), CHANGED)

    assert response.status_code == 403
    assert preferences_of(alice).board_theme == "brown"


# --------------------------------------------------------------------------- gateway key


def shown_key(response) -> str | None:
    found = re.search(r'<code id="new-gateway-key"[^>]*>([^<]+)</code>', response.content.decode())
    return found[1] if found else None


def test_the_gateway_key_is_made_on_the_preferences_page_and_shown_once(as_alice, alice, bob):
    page = as_alice.get(reverse("preferences"))
    assert 'id="gateway-key-none"' in page.content.decode()
    made = as_alice.post(reverse("gateway_key"))
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    key = shown_key(made)
    assert key is not None and len(key) == 32
    assert gateway_key_matches(alice.pk, key) and not gateway_key_matches(bob.pk, key)
    # Never shown again: the page says when it was made.
    again = as_alice.get(reverse("preferences")).content.decode()
    assert key not in again and 'id="gateway-key-made"' in again
    # A new one ends the old one, and says so.
    newer = as_alice.post(reverse("gateway_key"))
    assert "no longer works" in newer.content.decode()
    assert not gateway_key_matches(alice.pk, key)
    assert gateway_key_matches(alice.pk, shown_key(newer) or "")


def test_the_gateway_key_page_speaks_spanish(as_alice):
    as_alice.cookies["django_language"] = "es"
    made = as_alice.post(reverse("gateway_key"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Tu nueva llave, que solo se muestra esta vez" in made
    assert "Llave para la pasarela #" in made


def test_a_gateway_key_needs_a_login_a_post_and_the_csrf_token(client, alice, db):
    assert client.post(reverse("gateway_key"))["Location"].startswith(reverse("login"))
    client.force_login(alice)
    assert client.get(reverse("gateway_key")).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(reverse("gateway_key")).status_code == 403
    assert gateway_key_made_at(alice.pk) is None


def test_fields_sent_with_the_gateway_key_post_are_ignored(as_alice, alice):
    # The form has no field: whatever is sent, huge or odd, only a new key is made.
    made = as_alice.post(
        reverse("gateway_key"), {"key": "x" * 10_000, "player": "1", "ñ": "\x00"}
    )
    key = shown_key(made)
    assert key is not None and key != "x" * 10_000
    assert gateway_key_matches(alice.pk, key)
