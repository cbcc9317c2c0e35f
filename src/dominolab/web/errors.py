"""The errors every room of the web app raises: a refused request (:class:`ApiError`), a
move that could not be stored (:class:`NotStored`), and a client past one of its rates
(:func:`take`). The edge turns each into a response with a status and a sentence."""

from __future__ import annotations

import math

from dominolab.web.limits import Limiter, RateLimited


class ApiError(Exception):
    """A refused request: an HTTP status and a sentence for a person."""

    def __init__(self, status: int, message: str, *, retry_after: float | None = None,
                 kind: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        #: seconds, sent as ``Retry-After`` (429, 503)
        self.retry_after = retry_after
        #: which limit refused it (a 429's), as ``/metrics`` counts it: games, hints, ...
        self.kind = kind


class NotStored(ApiError):
    """A move that could not be stored, and so was not made."""


async def take(limiter: Limiter, client: str, what: str) -> None:
    """Draw one of ``what`` (new games, hints, ...) from ``client``'s bucket; 429 with the
    seconds to wait when it is empty (its kind: ``what``'s first noun, ``games`` for "new
    games and invitations")."""
    try:
        await limiter.take(client)
    except RateLimited as exc:
        wait = max(1, math.ceil(exc.retry_after))
        raise ApiError(429, f"too many {what} from your address; try again in {wait} s",
                       retry_after=wait,
                       kind=what.removeprefix("new ").split()[0]) from None
