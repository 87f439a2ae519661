from django.apps import AppConfig
from django.db import connections


def close_request_connections(**kwargs: object) -> None:
    """Close the database connections of the HTTP request that has just finished.

    Django's ASGI handler runs each request's synchronous code (middleware, sync views,
    ``database_sync_to_async``) on a thread of that request's own
    (``asgiref.sync.ThreadSensitiveContext``), which ends with the request; a connection
    kept for ``CONN_MAX_AGE`` there is never used again, but stays open until the
    garbage collector finds it (rarely: ``ajedrez.asgi`` tunes the collector for
    sockets). Measured on PostgreSQL: 40 requests to ``/healthz`` left 42 connections
    open, and a run of the lichess API's tests reached ``max_connections``. WebSocket
    consumers and the gateways run outside such contexts, on threads that live on, and
    keep theirs (``docs/deploy.md``)."""
    for connection in connections.all(initialized_only=True):
        connection.close()


class AjedrezConfig(AppConfig):
    name = "ajedrez"
    verbose_name = "Ajedrez"

    def ready(self) -> None:
        from django.core.handlers.asgi import ASGIHandler
        from django.core.signals import request_finished

        # Only for Django's ASGI handler (Daphne): the test client's requests share the
        # test's own connection, which must stay open.
        request_finished.connect(
            close_request_connections, sender=ASGIHandler, dispatch_uid="close_request_connections"
        )
