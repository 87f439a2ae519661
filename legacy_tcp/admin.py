"""The gateways' guest policy and linked names (``docs/protocols/guests.md``)."""

from __future__ import annotations

from django.contrib import admin

from legacy_tcp.models import GatewayPolicy, LinkedName


@admin.register(GatewayPolicy)
class GatewayPolicyAdmin(admin.ModelAdmin):
    list_display = ("gateway", "guests_allowed")
    list_editable = ("guests_allowed",)
    list_display_links = ("gateway",)


@admin.register(LinkedName)
class LinkedNameAdmin(admin.ModelAdmin):
    list_display = ("name", "gateway", "channel", "player")
    list_filter = ("gateway",)
    search_fields = ("name", "channel", "player__username")
    autocomplete_fields = ("player",)
