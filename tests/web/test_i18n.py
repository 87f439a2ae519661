"""Spanish by default, English on request: pages, form errors, domain errors, choices."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.services import request_subscription
from ajedrez import settings as project_settings
from games import services


@pytest.fixture(autouse=True)
def _site_default_language(settings) -> None:
    # The test suite reads English by default; here the site's real default applies.
    settings.LANGUAGE_CODE = project_settings.LANGUAGE_CODE


def text(response) -> str:
    return response.content.decode()


def test_the_configured_default_language_is_spanish():
    assert project_settings.LANGUAGE_CODE == "es"


def test_a_visitor_without_a_language_choice_reads_spanish(client, db):
    html = text(client.get(reverse("login")))

    assert '<html lang="es"' in html
    assert "Iniciar sesión" in html
    assert "¿Aún no tienes cuenta?" in html


def test_a_browser_asking_for_english_reads_english(db):
    client = Client(headers={"accept-language": "en"})

    html = text(client.get(reverse("login")))

    assert '<html lang="en"' in html
    assert "No account yet?" in html
    assert "¿Aún no tienes cuenta?" not in html


def test_the_language_switcher_changes_the_language_and_returns_to_the_page(client, db):
    response = client.post(
        reverse("set_language"), {"language": "en", "next": reverse("subscribe")}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("subscribe")
    assert "Send the request" in text(client.get(reverse("subscribe")))

    client.post(reverse("set_language"), {"language": "es", "next": reverse("subscribe")})

    assert "Enviar la solicitud" in text(client.get(reverse("subscribe")))


def test_every_page_offers_the_language_switcher(client, alice):
    client.force_login(alice)

    html = text(client.get(reverse("dashboard")))

    assert f'action="{reverse("set_language")}"' in html
    assert 'name="language" value="es"' in html
    assert 'name="language" value="en"' in html


def test_form_errors_show_in_spanish(client, db):
    response = client.post(
        reverse("subscribe"),
        {"username": "fr:ank", "password1": "long-pass-1", "password2": "long-pass-2"},
    )

    html = text(response)
    assert "De 1 a 30 caracteres: solo letras, dígitos y _ - ." in html
    assert "Las dos contraseñas no coinciden." in html


def test_login_explains_a_pending_request_in_spanish(client, db):
    request_subscription(username="frank", password="long-pass-1")

    response = client.post(reverse("login"), {"username": "frank", "password": "long-pass-1"})

    assert "esperando la aprobación de un administrador" in text(response)


def test_domain_errors_show_in_spanish(client, alice):
    client.force_login(alice)

    response = client.post(reverse("challenge_create"), {"username": "alice"})

    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "No puedes desafiarte a ti mismo."
    ]


def test_domain_errors_show_in_english_when_chosen(alice):
    client = Client(headers={"accept-language": "en"})
    client.force_login(alice)

    response = client.post(reverse("challenge_create"), {"username": "alice"})

    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "You cannot challenge yourself."
    ]


def test_model_choices_show_in_spanish(client, alice):
    client.force_login(alice)

    html = text(client.get(reverse("preferences")))

    assert "Marrón" in html
    assert "mi color abajo" in html
    assert "Mostrar las coordenadas" in html


def test_how_a_game_ended_shows_in_spanish(client, alice, bob, game):
    services.resign(game_id=game.pk, player=bob)
    client.force_login(alice)

    html = text(client.get(reverse("dashboard")))

    assert "Rendición" in html
    assert "ganada" in html
