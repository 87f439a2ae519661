"""The shared asyncio line server of the TCP gateways: :mod:`.server` (connections, caps,
deadlines, timeouts, back-pressure, graceful stop), :mod:`.accepting` (accepting through
descriptor shortages), :mod:`.limits` (descriptors, address keys), :mod:`.threads`
(database threads), :mod:`.refusals` (one log line per flood), :mod:`.following`
(connections that follow games live) and :mod:`.passwordless` (gateways that name
players without a password, and their shared secret)."""
