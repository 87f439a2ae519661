"""The ranking page: the top ten by wins and the full sortable table."""

from __future__ import annotations

import re

from django.urls import reverse

from ranking.models import PlayerRecord


def set_record(player, *, wins=0, losses=0, draws=0, rating=1500) -> None:
    PlayerRecord.objects.filter(player=player).update(
        wins=wins, losses=losses, draws=draws, rating=rating
    )


def top_ten(response) -> list[str]:
    html = response.content.decode()
    block = html[html.index('id="top-ten"') : html.index("</ol>")]
    return re.findall(r'href="/players/([^/]+)/"', block)


def table(response) -> list[str]:
    html = response.content.decode()
    block = html[html.index('id="ranking-table"') : html.index("</table>")]
    return re.findall(r'href="/players/([^/]+)/"', block)


def test_ranking_needs_a_login(client, db):
    assert client.get(reverse("ranking"))["Location"].startswith(reverse("login"))


def test_top_ten_orders_by_wins_then_fewer_games_then_name(as_alice, alice, make_player):
    bob, carol, dave, eve = (make_player(n) for n in ("bob", "carol", "dave", "eve"))
    set_record(alice, wins=3, losses=5)
    set_record(bob, wins=3, losses=1)
    set_record(carol, wins=5)
    set_record(dave, wins=3, losses=1)
    set_record(eve, wins=0, losses=2)

    response = as_alice.get(reverse("ranking"))

    assert top_ten(response) == ["carol", "bob", "dave", "alice"]


def test_top_ten_leaves_out_players_without_a_win(as_alice, alice, bob, make_player):
    set_record(alice, wins=1, losses=1)
    set_record(bob, losses=1, draws=3)

    response = as_alice.get(reverse("ranking"))

    assert top_ten(response) == ["alice"]
    assert "bob" in table(response)


def test_top_ten_says_so_when_nobody_has_won(as_alice, alice, bob):
    set_record(alice, draws=1)
    set_record(bob, draws=1)

    html = as_alice.get(reverse("ranking")).content.decode()

    assert 'id="top-ten"' not in html
    assert "Nobody has won a game yet." in html


def test_top_ten_holds_ten_players(as_alice, alice, make_player):
    for n in range(12):
        set_record(make_player(f"p{n:02d}"), wins=n)

    names = top_ten(as_alice.get(reverse("ranking")))

    assert names == [f"p{n:02d}" for n in range(11, 1, -1)]


def test_ranking_table_sorts_by_the_chosen_column(as_alice, alice, make_player):
    bob = make_player("bob")
    set_record(alice, wins=4, rating=1400)
    set_record(bob, wins=1, rating=1600)

    assert table(as_alice.get(reverse("ranking"), {"order": "wins"})) == ["alice", "bob"]
    assert table(as_alice.get(reverse("ranking"), {"order": "rating"})) == ["bob", "alice"]


def test_ranking_with_an_unknown_order_falls_back_to_wins(as_alice, alice, make_player):
    bob = make_player("bob")
    set_record(bob, wins=2)

    response = as_alice.get(reverse("ranking"), {"order": "password"})

    assert response.status_code == 200
    assert response.context["order"] == "wins"
    assert table(response) == ["bob", "alice"]


def test_ranking_leaves_out_closed_accounts(as_alice, alice, make_player):
    gone = make_player("gone")
    set_record(gone, wins=9)
    set_record(alice, wins=1)
    gone.is_active = False
    gone.save()

    response = as_alice.get(reverse("ranking"))

    assert "gone" not in table(response)
    assert "gone" not in top_ten(response)


def test_ranking_table_is_paginated_and_numbers_positions_across_pages(
    as_alice, alice, make_player
):
    for n in range(30):
        set_record(make_player(f"p{n:02d}"), wins=n + 1)

    first = as_alice.get(reverse("ranking"))
    second = as_alice.get(reverse("ranking"), {"page": 2})

    assert len(table(first)) == 25
    assert table(second) == ["p04", "p03", "p02", "p01", "p00", "alice"]
    assert re.search(r">26</td>\s*<td><a href=\"/players/p04/\"", second.content.decode())
