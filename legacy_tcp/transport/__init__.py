"""The shared asyncio line server of the TCP gateways: :mod:`.server` (connections, caps,
deadlines, timeouts, back-pressure, graceful stop), :mod:`.connection` (one client's
connection as the protocols see it), :mod:`.accepting` (accepting through
descriptor shortages), :mod:`.limits` (descriptors, address keys), :mod:`.threads`
(database threads), :mod:`.refusals` (one log line per flood), :mod:`.backoff`
(addresses that reconnect as fast as they are refused), :mod:`.following`
(connections that follow games live) and :mod:`.passwordless` (gateways that name
players without a password, and their shared secret)."""
