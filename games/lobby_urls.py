"""The lobby: dashboard, players, challenge actions (POST only) and open challenges."""

from django.urls import path

from games import archive, inbox, lobby, seek_views

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
    # Open challenges (seeks); a seek's page is the join address the lichess API gives.
    path("seeks/", seek_views.seek_list, name="seek_list"),
    path("seeks/new/", seek_views.seek_create, name="seek_create"),
    path("seeks/<str:short_id>/", seek_views.seek_detail, name="seek_detail"),
    path("seeks/<str:short_id>/accept/", seek_views.seek_accept, name="seek_accept"),
    path("seeks/<str:short_id>/cancel/", seek_views.seek_cancel, name="seek_cancel"),
]
