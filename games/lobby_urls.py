"""The lobby: dashboard, players, and challenge actions (POST only)."""

from django.urls import path

from games import archive, inbox, lobby

urlpatterns = [
    path("", lobby.dashboard, name="dashboard"),
    path("my-games/<slug:section>/", lobby.game_list, name="game_list"),
    path("vacation/", lobby.vacation, name="vacation"),
    path("awaiting/", lobby.awaiting, name="awaiting"),
    path("next/", inbox.next_game, name="next_game"),
    path("notifications/", inbox.notification_list, name="notification_list"),
    path("notifications/<int:pk>/", inbox.notification_open, name="notification_open"),
    path("notifications/read/", inbox.notification_read_all, name="notification_read_all"),
    path("players/", lobby.players, name="players"),
    path("live/", lobby.live_games, name="live_games"),
    path("players/<str:username>/", lobby.player_detail, name="player_detail"),
    path("players/<str:username>/games/", archive.archive, name="player_archive"),
    path("players/<str:username>/games.pgn", archive.archive_pgn, name="player_archive_pgn"),
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
