"""A player's language: chosen with the menu on every page or on the preferences page,
taken again at each login on any computer, and the language of their e-mail."""

from __future__ import annotations

from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import Preferences
from accounts.selectors import preferences_of
from tests.conftest import PASSWORD


def switch(client: Client, language: str):
    return client.post(reverse("set_language"), {"language": language, "next": "/"})


def test_the_menu_remembers_a_logged_in_players_choice(as_alice, alice, bob):
    response = switch(as_alice, "en")
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert preferences_of(alice).language == "en"
    assert preferences_of(bob).language == ""


def test_an_anonymous_choice_is_only_the_cookie(client, db):
    response = switch(client, "en")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert not Preferences.objects.exists()


def test_a_language_the_site_has_not_changes_nothing(as_alice, alice):
    for language in ("fr", "en-gb", "", "en-gb-x-" + "a" * 300, "ES<script>", "es\x00"):
        response = switch(as_alice, language)
        assert response.status_code == 302
        assert response["Location"] == "/"
        assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert not Preferences.objects.filter(player=alice).exists()


def test_the_menu_goes_back_only_to_a_page_of_the_site(as_alice):
    response = as_alice.post(
        reverse("set_language"), {"language": "en", "next": "https://evil.example/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_the_menu_needs_a_post_with_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(reverse("set_language")).status_code == 405
    assert switch(client, "en").status_code == 403
    assert preferences_of(alice).language == ""


def test_login_on_another_computer_brings_the_chosen_language(alice):
    Preferences.objects.create(player=alice, language="en")
    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="es")
    response = elsewhere.post(
        reverse("login"), {"username": "alice", "password": PASSWORD}, follow=True
    )
    assert elsewhere.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert response.redirect_chain and '<html lang="en"' in response.content.decode()


def test_login_without_a_choice_leaves_the_language_alone(alice):
    client = Client()
    client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies


def test_the_preferences_page_sets_the_language_and_answers_in_it(as_alice, alice):
    page = as_alice.get(reverse("preferences")).content.decode()
    assert 'name="language"' in page
    data = {
        "board_theme": "brown", "piece_set": "cburnett", "orientation": "auto",
        "language": "es",
    }
    response = as_alice.post(reverse("preferences"), data, follow=True)
    assert preferences_of(alice).language == "es"
    assert as_alice.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    html = response.content.decode()
    assert '<html lang="es"' in html
    assert "Se guardaron tus preferencias." in html


def test_the_preferences_page_refuses_a_language_the_site_has_not(as_alice, alice):
    data = {
        "board_theme": "brown", "piece_set": "cburnett", "orientation": "auto",
        "language": "fr",
    }
    response = as_alice.post(reverse("preferences"), data)
    assert response.status_code == 200
    assert response.context["form"].errors["language"]
    assert not Preferences.objects.filter(player=alice).exists()
