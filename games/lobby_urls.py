"""The lobby: dashboard, players, and challenge actions (POST only)."""

from django.urls import path

from games import lobby

urlpatterns = [
    path("", lobby.dashboard, name="dashboard"),
    path("players/", lobby.players, name="players"),
    path("players/<str:username>/", lobby.player_detail, name="player_detail"),
    # Under accounts/ with the other account pages; served here because leaving ends
    # the player's games, which the page lists.
    path("accounts/unsubscribe/", lobby.unsubscribe, name="unsubscribe"),
    path("challenges/new/", lobby.challenge_create, name="challenge_create"),
    path(
        "challenges/<int:pk>/accept/<str:colour>/",
        lobby.challenge_accept,
        name="challenge_accept",
    ),
    path("challenges/<int:pk>/decline/", lobby.challenge_decline, name="challenge_decline"),
    path("challenges/<int:pk>/withdraw/", lobby.challenge_withdraw, name="challenge_withdraw"),
]
