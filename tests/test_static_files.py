"""Static files as a bare ``daphne ajedrez.asgi:application`` serves them (WhiteNoise in
the application): hashed names, gzip, long caching, ES module imports hashed too."""

from __future__ import annotations

import gzip
import re
import urllib.error
import urllib.request

import pytest
from django.conf import settings


def _get(url: str, **headers: str):
    request = urllib.request.Request(url, headers=headers)
    return urllib.request.urlopen(request, timeout=10)


@pytest.fixture
def bare_daphne(module_daphne):
    return f"http://127.0.0.1:{module_daphne.port}"


def test_pages_name_static_files_by_hashed_names_that_daphne_serves(bare_daphne):
    with _get(f"{bare_daphne}/accounts/login/") as response:
        html = response.read().decode()
    css = re.search(r'href="(/static/css/ajedrez\.[0-9a-f]{12}\.css)"', html)
    assert css, html[:2000]
    with _get(bare_daphne + css.group(1)) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/css")
        # A hashed name changes with the content: browsers and proxies keep it for good.
        assert "immutable" in response.headers["Cache-Control"]
        assert response.read() == (settings.BASE_DIR / "static/css/ajedrez.css").read_bytes()


def test_static_files_are_sent_gzipped_to_clients_that_accept_it(bare_daphne):
    with _get(f"{bare_daphne}/accounts/login/") as response:
        html = response.read().decode()
    bootstrap = re.search(r'href="(/static/vendor/bootstrap/css/bootstrap\.min\.\w+\.css)"', html)
    assert bootstrap, html[:2000]
    with _get(bare_daphne + bootstrap.group(1), **{"Accept-Encoding": "gzip"}) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        body = response.read()
    original = (settings.BASE_DIR / "static/vendor/bootstrap/css/bootstrap.min.css").read_bytes()
    assert len(body) < len(original) / 4
    assert gzip.decompress(body) == original


def test_the_board_script_imports_the_board_modules_by_hashed_names(bare_daphne):
    collected = settings.STATIC_ROOT / "js"
    (game_js,) = [p for p in collected.iterdir() if re.fullmatch(r"game\.[0-9a-f]{12}\.js", p.name)]
    with _get(f"{bare_daphne}/static/js/{game_js.name}") as response:
        script = response.read().decode()
    board = re.search(r'from "\.\./vendor/chessground/dist/(chessground\.\w{12}\.js)"', script)
    assert board, script[:500]
    url = f"{bare_daphne}/static/vendor/chessground/dist/{board.group(1)}"
    with _get(url) as response:
        module = response.read().decode()
    assert re.search(r'from "\./api\.[0-9a-f]{12}\.js"', module)


@pytest.mark.parametrize(
    "path",
    [
        "/static/css/nothing-here.css",
        "/static/../ajedrez/settings.py",
        "/static/%2e%2e/manage.py",
        "/static/css/ajedrez.000000000000.css",
    ],
)
def test_a_static_path_that_names_no_collected_file_is_not_found(bare_daphne, path):
    with pytest.raises(urllib.error.HTTPError) as refused:
        _get(bare_daphne + path)
    assert refused.value.code == 404
