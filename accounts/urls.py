"""URLs (filled in by the web pages)."""

urlpatterns: list = []
