"""Descriptor limits and address keys of the line gateways.

Every connection holds a descriptor, and the process's open-file limit is shared with the
database and Redis connections, log files and, under ``manage.py serve``, the web. A
gateway's total cap is therefore never more than the limit less a headroom
(:func:`connection_cap`), and the commands raise the soft limit at start as far as the
hard one allows (:func:`raise_open_file_limit`).
"""

from __future__ import annotations

import functools
import logging
import resource
import select
import socket

from accounts.throttling import client_address

logger = logging.getLogger("legacy_tcp.transport")

# Descriptors kept for everything but the gateway's connections: a quarter of the
# open-file limit, and never fewer than this.
FD_HEADROOM_MIN = 128


def fd_headroom(open_files: int) -> int:
    """Descriptors the gateway leaves to the rest of the process under ``open_files``."""
    return max(FD_HEADROOM_MIN, open_files // 4)


def has_waiting_connection(listener: socket.socket) -> bool:
    """Whether a connection waits in the listener's backlog (poll() needs no descriptor)."""
    poller = select.poll()
    poller.register(listener, select.POLLIN)
    return bool(poller.poll(0))


def open_file_limit() -> int:
    """This process's soft limit on open descriptors."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 2**31


def connection_cap(max_connections: int, open_files: int) -> int:
    """The connections the gateway may hold: ``max_connections``, but never more than
    the open-file limit ``open_files`` leaves after the headroom."""
    return max(0, min(max_connections, open_files - fd_headroom(open_files)))


def raise_open_file_limit(max_connections: int) -> tuple[int, int]:
    """Raise the soft open-file limit towards what ``max_connections`` and the headroom
    need, as far as the hard limit allows; return the soft limit before and after.

    Many systems start services with a soft limit of 1024 under a far higher hard one:
    the gateway's cap would then be 768 for no reason.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # The smallest limit whose cap is max_connections: both headroom rules hold there.
    wanted = max(max_connections + FD_HEADROOM_MIN, -(-max_connections * 4 // 3))
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:
            logger.warning("transport.open_files_not_raised soft=%d wanted=%d error=%s",
                           soft, wanted, exc)
    return soft, open_file_limit()


# Parsing an address costs microseconds, and a flood repeats the same few: remembered.
@functools.lru_cache(maxsize=4096)
def address_key(host: str) -> str:
    """What the per-address cap and the login throttle count by: the IPv4 address, or the
    IPv6 /64, as the web's login lock-out counts (:func:`accounts.throttling.client_address`)."""
    return client_address(host) or host
