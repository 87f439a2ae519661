"""Floods of what a connection makes, against the whole service (``manage.py serve``
with every gateway, ``tests.test_stress_floods``' helpers) while a good client plays:

- Guests on ``#``: new names paired as fast as possible from one address make at most
  ``GUESTS_PER_ADDRESS`` guest accounts; the rest are refused with the protocol's reason.
- Challenges: carol challenges and withdraws bob through the web's forms while her ESPOL
  connection sends ``JUEG``: at most ``CHALLENGES_PER_PAIR_PER_WINDOW`` challenges stored,
  none of the withdrawn ones left unread in bob's notifications.

Each prints the good client's move times idle and under the flood (a figure for
``docs/security.md``, not a pass mark). Their short variants in the normal run are
``tests/protocols/test_guest_flood.py`` and ``tests/games/test_challenge_limits.py``.
"""

from __future__ import annotations

import re
import secrets
import threading
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from ajedrez.demo import PLAYER_PASSWORD
from tests.protocols.test_espol_limits import linux_only
from tests.stress import espol_login
from tests.test_stress_attacks import GoodClient, latency_figures, servers, web_login
from tests.test_stress_floods import (
    OTHER_ADDRESS,
    TIMEOUT,
    FloodServe,
    connect,
    flood_while_playing,
    no_traceback,
)

pytestmark = [pytest.mark.stress, linux_only]

GUESTS_REFUSED = "#NOK#Demasiados invitados nuevos"


@pytest.fixture
def serve(tmp_path) -> Iterator[Callable[..., FloodServe]]:
    yield from servers(tmp_path, lambda directory, **env: FloodServe(directory, env))


# --------------------------------------------------------------------------- guests


def pair_guests(port: int, stop: threading.Event, replies: Counter) -> None:
    """New names two by two (the second pairs with the first: two guests and a game),
    then both connections closed, again and again."""
    while not stop.is_set():
        pair = []
        try:
            for _ in range(2):
                sock = connect(port)
                pair.append(sock)
                sock.sendall(f"#INSCRIBIR#g{secrets.token_hex(6)}#\n".encode())
                answer = sock.makefile("rb").readline().decode()
                if answer.startswith(GUESTS_REFUSED):
                    replies["refused: too many new guests"] += 1
                elif answer.startswith("#OK#"):
                    replies[f"registered {answer.strip()}"] += 1
                else:
                    replies[answer.strip() or "closed"] += 1
        except OSError as exc:
            replies[type(exc).__name__] += 1
        finally:
            for sock in pair:
                sock.close()


def test_a_good_client_moves_while_one_address_floods_the_hash_gateway_with_guests(serve):
    allowed = 30
    server = serve(GUESTS_PER_ADDRESS=str(allowed), DISTRIBUIDO_MAX_PER_ADDRESS="20")
    good = GoodClient.start(server)
    idle = good.play(12)
    guests_before = server.query("SELECT COUNT(*) FROM accounts_guestidentity")[0][0]
    stop = threading.Event()
    replies: Counter = Counter()
    flooders = [
        threading.Thread(target=pair_guests, args=(server.distribuido_port, stop, replies))
        for _ in range(2)
    ]
    attacked, during, lasted = flood_while_playing(good, flooders, stop)
    made = server.query("SELECT COUNT(*) FROM accounts_guestidentity")[0][0] - guests_before
    games = server.query(
        "SELECT COUNT(*) FROM games_game g JOIN accounts_guestidentity i"
        " ON i.player_id = g.white_id"
    )[0][0]
    # Another address has its own allowance.
    with connect(server.distribuido_port, source=OTHER_ADDRESS) as sock:
        sock.sendall(b"#INSCRIBIR#invitado_de_otra#\n")
        assert sock.makefile("rb").readline().startswith(b"#OK#")
    good.espol.close()
    registered = sum(count for reply, count in replies.items() if reply.startswith("registered"))
    assert made <= allowed, f"{made} guest accounts from one address"
    assert registered == made, (registered, made, replies)
    assert replies["refused: too many new guests"] > 0, replies
    no_traceback(server)
    print(
        f"\nFIGURES guests: 2 threads pairing new names from one address for {lasted:.0f} s: "
        f"{dict(replies)}; {made} guest accounts made (limit {allowed}), {games} games with "
        f"a guest as white; {latency_figures(idle, attacked)}; {during}"
    )


# --------------------------------------------------------------------------- challenges


ALERT = re.compile(r'<div class="alert alert-(\w+)[^>]*>\s*(.*?)\s*<button', re.S)
WITHDRAW = re.compile(r'action="/challenges/(\d+)/withdraw/"')


def post_form(opener, csrf: str, url: str, fields: dict[str, str]) -> str:
    """A form posted as the page does; the page it lands on (the dashboard)."""
    data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": csrf, "next": "/"})
    with opener.open(url, data=data.encode(), timeout=TIMEOUT) as page:
        assert page.status == 200
        return page.read().decode()


def challenge_over_the_web(
    port: int, username: str, opponent: str, stop: threading.Event, outcomes: Counter
) -> None:
    """Challenge ``opponent`` and withdraw whatever is pending, as fast as the forms go."""
    browser = web_login(port, username)
    opener, csrf = browser.opener, browser.csrf
    base = f"http://127.0.0.1:{port}"
    while not stop.is_set():
        page = post_form(opener, csrf, f"{base}/challenges/new/", {"username": opponent})
        alerts = ALERT.findall(page)
        if any(level == "success" for level, _ in alerts):
            outcomes["web: sent"] += 1
        elif any("too many challenges" in text for _, text in alerts):
            outcomes["web: too many challenges"] += 1
        else:
            outcomes[f"web: {alerts[0][1][:40] if alerts else 'no message'}"] += 1
        for pk in WITHDRAW.findall(page):
            post_form(opener, csrf, f"{base}/challenges/{pk}/withdraw/", {})
            outcomes["web: withdrawn"] += 1


def challenge_over_espol(
    port: int, username: str, opponent: str, stop: threading.Event, outcomes: Counter
) -> None:
    client = espol_login(port, username, PLAYER_PASSWORD)
    try:
        while not stop.is_set():
            reply = client.send(f"JUEG:{opponent}")
            outcomes[f"ESPOL: {reply.code if reply else 'closed'}"] += 1
    finally:
        client.close()


def test_a_good_client_moves_while_a_player_spams_challenges_at_two_doors(serve):
    # carol, not alice: alice and bob have a game in progress in the demo data, and a
    # pair with an active game is refused before any limit is counted.
    per_pair, per_window = 3, 30
    server = serve(
        CHALLENGES_PER_PAIR_PER_WINDOW=str(per_pair), CHALLENGES_PER_WINDOW=str(per_window)
    )
    good = GoodClient.start(server)
    idle = good.play(12)
    stop = threading.Event()
    outcomes: Counter = Counter()
    flooders = [
        threading.Thread(
            target=challenge_over_the_web, args=(server.web_port, "carol", "bob", stop, outcomes)
        ),
        threading.Thread(
            target=challenge_over_espol, args=(server.espol_port, "carol", "bob", stop, outcomes)
        ),
    ]
    attacked, during, lasted = flood_while_playing(good, flooders, stop)
    good.espol.close()
    stored = dict(server.query(
        "SELECT c.status, COUNT(*) FROM games_challenge c"
        " JOIN auth_user a ON a.id = c.challenger_id JOIN auth_user b ON b.id = c.challenged_id"
        " WHERE a.username = 'carol' AND b.username = 'bob' GROUP BY c.status"
    ))
    unread = dict(server.query(
        "SELECT c.status, COUNT(*) FROM games_notification n"
        " JOIN games_challenge c ON c.id = n.challenge_id"
        " JOIN auth_user a ON a.id = c.challenger_id JOIN auth_user b ON b.id = n.recipient_id"
        " WHERE a.username = 'carol' AND b.username = 'bob' AND n.read_at IS NULL"
        " GROUP BY c.status"
    ))
    made = sum(stored.values())
    refused = outcomes["web: too many challenges"] + outcomes["ESPOL: 402"]
    assert made <= per_pair, stored
    assert outcomes["web: sent"] + outcomes["ESPOL: 103"] == made, (outcomes, stored)
    assert refused > 0, outcomes
    assert "withdrawn" not in unread, unread  # withdrawn before bob read it: gone
    no_traceback(server)
    print(
        f"\nFIGURES challenges: carol challenged bob for {lasted:.0f} s through the web "
        f"(withdrawing each) and ESPOL JUEG: {dict(outcomes)}; stored {stored} (pair limit "
        f"{per_pair}); {refused} refused as too many; bob's unread notifications of them "
        f"{unread or 'none'}; {latency_figures(idle, attacked)}; {during}"
    )

