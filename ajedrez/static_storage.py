"""The static files storage: WhiteNoise's compressed, hashed names, ES modules included."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, also rewriting ``import … from "./x.js"`` to hashed names.

    The game page's script imports the vendored chessground modules, and they import one
    another. Without this, the hashed ``game.<hash>.js`` (cached for a year) would import
    ``chessground.js`` under its plain name, cached for a minute, and a browser could run
    a new page script against an old board after an upgrade, or the reverse.
    """

    support_js_module_import_aggregation = True
