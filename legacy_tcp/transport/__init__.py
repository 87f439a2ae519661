"""The shared asyncio line server of the TCP gateways: :mod:`.server` (connections, caps,
deadlines, timeouts, back-pressure, graceful stop), :mod:`.limits` (descriptors, address
keys), :mod:`.threads` (database threads), :mod:`.refusals` (flood logging) and
:mod:`.following` (connections that follow games live)."""
