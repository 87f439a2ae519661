"""The ranking page: the top ten by wins, the top ten by rating and the full sortable
table."""

from __future__ import annotations

import datetime as dt
import re

from django.urls import reverse
from django.utils import timezone

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


def top_rated(response) -> list[tuple[str, str]]:
    html = response.content.decode()
    block = html[html.index('id="top-rated"') : html.index("</ol>", html.index('id="top-rated"'))]
    return re.findall(r'href="/players/([^/]+)/".*?title="rating">([^<]+)<', block, re.S)


def test_top_ten_by_rating_lists_established_ratings_only(as_alice, alice, make_player):
    now = timezone.now()
    bob, carol, dave = (make_player(n) for n in ("bob", "carol", "dave"))
    later = now + dt.timedelta(days=30)
    PlayerRecord.objects.filter(player=alice).update(rating=1700, deviation=80,
                                                     rated_at=now, established_until=later)
    PlayerRecord.objects.filter(player=bob).update(rating=1900, deviation=60,
                                                   rated_at=now, established_until=later)
    # carol is rated higher, but provisional; dave's rating was established once and
    # has grown uncertain since.
    PlayerRecord.objects.filter(player=carol).update(rating=2100, deviation=200, rated_at=now)
    PlayerRecord.objects.filter(player=dave).update(
        rating=2000, deviation=100, rated_at=now - dt.timedelta(days=800),
        established_until=now - dt.timedelta(days=1),
    )

    response = as_alice.get(reverse("ranking"))

    assert top_rated(response) == [("bob", "1900"), ("alice", "1700")]
    html = response.content.decode()
    row = re.search(r'href="/players/carol/">carol</a></td>\s*<td class="text-end">([^<]+)<', html)
    assert row is not None and row.group(1) == "2100?"


def test_top_ten_by_rating_says_when_nobody_is_established(as_alice):
    html = as_alice.get(reverse("ranking")).content.decode()
    assert 'id="top-rated"' not in html
    assert "Nobody's rating is established yet." in html


def test_ranking_page_reads_in_a_fixed_number_of_queries(
    as_alice, make_player, django_assert_max_num_queries
):
    as_alice.get(reverse("ranking"))
    with django_assert_max_num_queries(12) as counted:
        as_alice.get(reverse("ranking"))
    few = len(counted.captured_queries)
    later = timezone.now() + dt.timedelta(days=30)
    for n in range(15):
        player = make_player(f"p{n:02d}")
        PlayerRecord.objects.filter(player=player).update(
            rating=1500 + n, deviation=70, established_until=later, wins=n
        )
    with django_assert_max_num_queries(few):
        as_alice.get(reverse("ranking"))


def test_the_ranking_and_the_profile_show_each_players_last_rating_change(
    as_carol, alice, bob, game, play
):
    play(game, "f3", "e5", "g4", "Qh4#")

    html = as_carol.get(reverse("ranking")).content.decode()
    cell = r'href="/players/{}/">{}</a></td>\s*<td class="text-end">'
    row = re.search(cell.format("bob", "bob") + r"([^<]+)<small[^>]*>([^<]+)<", html)
    assert row is not None and (row.group(1).strip(), row.group(2)) == ("1662?", "+162")
    assert re.search(cell.format("carol", "carol") + r"1500\?</td>", html)
    profile = as_carol.get(reverse("player_detail", args=["alice"])).content.decode()
    assert "−162 in the last rated game" in profile


def test_staff_accounts_are_not_in_the_ranking(as_alice, alice, make_player):
    admin = make_player("admin")
    type(admin).objects.filter(pk=admin.pk).update(is_staff=True)
    names = table(as_alice.get(reverse("ranking")))
    assert "alice" in names and "admin" not in names
