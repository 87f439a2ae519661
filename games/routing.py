"""WebSocket routes."""

from __future__ import annotations

from django.urls import path

websocket_urlpatterns: list = []
