"""The lichess-compatible API: lichess's own clients (berserk, board apps, bots) play
here by changing one URL. The specification is lichess's, its OpenAPI files;
``docs/protocols/lichess.md`` says, endpoint by endpoint, where this service differs.

A front door like the others: :mod:`.gate` checks the token, its scopes and its rate,
and turns domain errors into lichess's JSON errors; one module per lichess tag
(:mod:`.account`, :mod:`.challenges`, :mod:`.board`, :mod:`.bot`, :mod:`.streams`) parses
the request, calls :mod:`games.services` or the read model, and answers in the shapes
built by :mod:`games.state.lichess`.
"""
