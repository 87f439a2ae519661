"""The ranking page: the seed's top ten by wins, the top ten by rating, and the full
sortable table."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ranking import selectors

RECORDS_PER_PAGE = 25


@login_required
@require_safe
def ranking(request: HttpRequest) -> HttpResponse:
    """Top ten by wins among players with a win (ties: fewer games, then name), then
    every player, sortable."""
    order = request.GET.get("order", "wins")
    if order not in selectors.SORTABLE:
        order = "wins"
    page = Paginator(selectors.ranking(order=order), RECORDS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "ranking/ranking.html",
        {
            "top_ten": selectors.top_ten(winners_only=True),
            "top_rated": selectors.top_ten_by_rating(),
            "page": page,
            "order": order,
            "first_position": page.start_index(),
        },
    )
