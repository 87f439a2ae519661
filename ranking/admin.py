"""AdmChess: the players' records, read-only (only finished games change them)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import F, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ranking.models import PlayerRecord


@admin.register(PlayerRecord)
class PlayerRecordAdmin(admin.ModelAdmin):
    list_display = ("player", "wins", "losses", "draws", "played", "rating")
    list_select_related = ("player",)
    list_filter = ("player__is_active",)
    search_fields = ("player__username",)
    ordering = ("-wins", "player__username")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerRecord]:
        return super().get_queryset(request).annotate(played=F("wins") + F("losses") + F("draws"))

    @admin.display(description=_("games"), ordering="played")
    def played(self, record: PlayerRecord) -> int:
        return record.played

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
