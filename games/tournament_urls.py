"""Tournament pages, mounted at ``/tournaments/``; joining, leaving and withdrawing are
POST only."""

from __future__ import annotations

from django.urls import path

from games import tournament_views

urlpatterns = [
    path("", tournament_views.tournament_list, name="tournament_list"),
    path("<int:pk>/", tournament_views.tournament_detail, name="tournament_detail"),
    path("<int:pk>/games/", tournament_views.tournament_games, name="tournament_games"),
    path("<int:pk>/games.pgn", tournament_views.tournament_pgn, name="tournament_pgn"),
    path("<int:pk>/join/", tournament_views.tournament_join, name="tournament_join"),
    path("<int:pk>/leave/", tournament_views.tournament_leave, name="tournament_leave"),
    path("<int:pk>/withdraw/", tournament_views.tournament_withdraw, name="tournament_withdraw"),
]
