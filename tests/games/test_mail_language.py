"""The language of a player's mail: the one they chose; with none chosen, the one they
read the site in (recorded when they log in and when they save their preferences);
before either, the site's. Sent through a real SMTP server on loopback."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts import services as account_services
from accounts.models import Preferences
from accounts.selectors import preferences_of
from games import services, tasks
from games.models import Notification, NotificationKind
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish_site(settings):
    # The site speaks Spanish unless a player's browser or choice says otherwise.
    settings.LANGUAGE_CODE = "es"
    settings.SITE_URL = "https://ajedrez.example"


@pytest.fixture
def players(alice, bob):
    for player, address in ((alice, "alice@example.org"), (bob, "bob@example.org")):
        player.email = address
        player.save(update_fields=["email"])
    return alice, bob


def log_in(player, accept_language: str) -> Client:
    """``player`` logs in through the login page from a browser asking for
    ``accept_language``."""
    browser = Client(headers={"accept-language": accept_language})
    response = browser.post(reverse("login"), {"username": player.username, "password": PASSWORD})
    assert response.status_code == 302, response.content[:300]
    return browser


def bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game) -> str:
    """bob plays against alice; her "your move" mail goes out: its subject."""
    game = start_game(bob, alice)
    services.make_move(game_id=game.pk, player=bob, move_number=1, move="e4")
    note = Notification.objects.get(recipient=alice, kind=NotificationKind.OPPONENT_MOVED)
    assert tasks.deliver(note.pk) == "sent"
    [received] = [m for m in smtp_server.messages if m["To"] == "alice@example.org"]
    return str(received["Subject"])


def test_a_player_who_reads_the_site_in_english_is_mailed_in_english(
    smtp_server, players, start_game
):
    alice, bob = players
    log_in(alice, "en-GB,en;q=0.9")
    assert preferences_of(alice).page_language == "en"
    subject = bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game)
    assert subject.startswith("[Ajedrez] Your move in P"), subject
    body = smtp_server.messages[-1].get_body(("plain",)).get_content()
    assert "bob played e4" in body and "Hello alice," in body


def test_without_any_page_read_the_mail_is_in_the_sites_language(
    smtp_server, players, start_game
):
    alice, bob = players
    subject = bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game)
    assert subject.startswith("[Ajedrez] Te toca en P"), subject


def test_the_last_login_gives_the_language(smtp_server, players, start_game):
    alice, bob = players
    log_in(alice, "en")
    log_in(alice, "es-EC,es;q=0.8")
    subject = bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game)
    assert subject.startswith("[Ajedrez] Te toca en P"), subject


def test_a_chosen_language_rules_over_the_pages(smtp_server, players, start_game):
    alice, bob = players
    Preferences.objects.create(player=alice, language="es")
    browser = log_in(alice, "en")
    # The chosen language is also the pages': the login sets its cookie.
    assert "Mis partidas" in browser.get(reverse("dashboard")).content.decode()
    subject = bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game)
    assert subject.startswith("[Ajedrez] Te toca en P"), subject


def test_the_language_menu_before_logging_in_is_the_language_of_the_pages(
    smtp_server, players, start_game
):
    alice, bob = players
    browser = Client(headers={"accept-language": "es"})
    browser.post(reverse("set_language"), {"language": "en", "next": "/"})
    browser.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert preferences_of(alice).language == ""  # chosen by nobody logged in
    subject = bob_moves_and_alice_is_mailed(smtp_server, alice, bob, start_game)
    assert subject.startswith("[Ajedrez] Your move in P"), subject


def test_saving_the_preferences_records_the_language_they_were_read_in(alice):
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(alice)
    page = browser.get(reverse("preferences")).content.decode()
    assert not Preferences.objects.filter(player=alice).exists()  # reading wrote nothing
    assert "Not chosen (e-mail in Spanish, as you read the site)" in page
    form = browser.get(reverse("preferences")).context["form"]
    values = {
        name: value for name, value in form.initial.items()
        if value not in (None, False) and name not in ("mail_kinds", "player")
    }
    values.update(mail_kinds_shown="1", language="")
    assert browser.post(reverse("preferences"), values).status_code == 302
    assert preferences_of(alice).page_language == "en"
    page = browser.get(reverse("preferences")).content.decode()
    assert "Not chosen (e-mail in English, as you read the site)" in page


@pytest.mark.parametrize(
    "header", ["", "xx", "fr-FR,fr;q=0.9", "*", "ñ" * 2000, "en;q=nonsense", "\x00"]
)
def test_a_browser_asking_for_no_language_the_site_has_gets_the_sites(header, alice):
    log_in(alice, header)
    assert preferences_of(alice).page_language in ("", "es")
    assert preferences_of(alice).mail_language() == "es"


@pytest.mark.parametrize("language", ["", "fr", "EN", "en-gb", "ñ", "e" * 500, None, 7])
def test_only_a_language_of_the_site_is_remembered(alice, language):
    account_services.remember_page_language(player=alice, language=language)
    assert not Preferences.objects.filter(player=alice).exists()
