"""WebSocket routes: a game's live page, a player's own pages, the lobby, the open
challenges, an event."""

from __future__ import annotations

from django.urls import path

from games import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/player/", consumers.PlayerConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/seeks/", consumers.SeeksConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", consumers.TournamentConsumer.as_asgi()),
]
