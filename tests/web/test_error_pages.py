"""The 404 and 500 pages: in the site's layout, in both languages; the site's icon."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import path

from ajedrez import settings as project_settings
from ajedrez.urls import urlpatterns as project_urlpatterns


def broken(request):
    raise RuntimeError("a bug")


urlpatterns = [*project_urlpatterns, path("broken/", broken)]


@pytest.fixture(autouse=True)
def _site_default_language(settings) -> None:
    settings.LANGUAGE_CODE = project_settings.LANGUAGE_CODE


def test_a_missing_page_is_the_sites_404_in_spanish(client, alice):
    client.force_login(alice)

    response = client.get("/no/such/page/")

    assert response.status_code == 404
    html = response.content.decode()
    assert "Página no encontrada" in html
    assert 'class="navbar' in html and "Volver a mis partidas" in html
    assert 'rel="icon"' in html


def test_a_missing_game_is_the_sites_404_in_english(alice):
    client = Client(headers={"accept-language": "en"})
    client.force_login(alice)

    response = client.get("/games/999999/")

    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html
    assert "Página no encontrada" not in html
    assert 'class="navbar' in html


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(
    ("language", "title"), [("es", "Algo ha fallado por nuestra parte"),
                            ("en", "Something went wrong on our side")]
)
def test_a_server_error_is_the_sites_500_in_each_language(db, language, title):
    client = Client(raise_request_exception=False, headers={"accept-language": language})

    response = client.get("/broken/")

    assert response.status_code == 500
    html = response.content.decode()
    assert title in html
    assert 'class="navbar' in html
    assert "a bug" not in html
    assert 'id="language-form"' not in html  # no request to post it with


def test_favicon_ico_leads_to_the_sites_icon(client, db):
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    # The icon's static name, hashed when the static files are collected (WhiteNoise).
    assert re.fullmatch(r"/static/img/favicon(\.[0-9a-f]{12})?\.svg", response["Location"])
