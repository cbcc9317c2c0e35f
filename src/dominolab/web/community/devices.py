"""A player's key on more devices, still without passwords (docs/web.md, "Your games on any
device"): a one-time link code shown on a device that has the key, claimed once on another
within ``limits.link_code_lifetime`` seconds, and a recovery code the player writes down,
which restores the key on any device until a new one replaces it.

The server keeps only each code's hash and the player's key sealed under the code (XOR with
a keystream of SHAKE-256 of the code): the code opens it, and nothing stored does. Claims are
rate-limited per address, and making codes per player and per address, so 8 characters of a
32-letter alphabet (40 bits) cannot be guessed in a link code's 10 minutes.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, Final

import segno

from dominolab.web.community.players import Players
from dominolab.web.errors import ApiError, take
from dominolab.web.limits import Limiter
from dominolab.web.storage.store import AsyncStore, PlayerRow, unavailable

#: the letters of a code: no 0/O, 1/I/L or U, so a code read aloud or copied by hand is
#: read right (Crockford's base 32)
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: a link code's letters (40 bits), and a recovery code's (80 bits: it never expires)
LINK_LENGTH: Final = 8
RECOVERY_LENGTH: Final = 16
#: what the kinds of code are called in the store
KINDS: Final = ("link", "recovery")


def normal_code(text: Any) -> str | None:
    """A code as typed (any case, with spaces or dashes between groups) in its one form, or
    None if it cannot be a code (other letters, or a length no code has)."""
    if not isinstance(text, str) or len(text) > 64:
        return None
    code = "".join(c for c in text.upper() if c not in " -\u00a0")
    code = code.replace("O", "0").replace("I", "1").replace("L", "1")
    if len(code) not in (LINK_LENGTH, RECOVERY_LENGTH) or any(
            c not in CODE_ALPHABET for c in code):
        return None
    return code


def new_code(length: int) -> str:
    """A random code of ``length`` letters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def shown_code(code: str) -> str:
    """A code in groups of four, as the page shows it (``ABCD-EFGH``)."""
    return "-".join(code[i:i + 4] for i in range(0, len(code), 4))


def link_qr(url: str) -> str:
    """A QR code of ``url`` as an SVG ``data:`` URI (the page shows it as an image), black on
    white with the quiet zone a camera needs, at the medium level of error correction."""
    return segno.make(url, error="m").svg_data_uri(scale=4, border=4, dark="#000",
                                                   light="#fff")


def code_hash(code: str) -> str:
    """What the store keeps of a code (in its one form, :func:`normal_code`)."""
    return hashlib.sha256(f"dominolab device code {code}".encode()).hexdigest()


def _stream(code: str, size: int) -> bytes:
    return hashlib.shake_256(f"dominolab sealed key {code}".encode()).digest(size)


def seal(key: str, code: str) -> str:
    """The player's ``key`` sealed under ``code`` (hex): only the code opens it."""
    raw = key.encode()
    return bytes(a ^ b for a, b in zip(raw, _stream(code, len(raw)), strict=True)).hex()


def unseal(sealed: str, code: str) -> str | None:
    """The key :func:`seal` sealed under ``code``; None if it does not open."""
    try:
        raw = bytes.fromhex(sealed)
        return bytes(a ^ b for a, b in zip(raw, _stream(code, len(raw)), strict=True)
                     ).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return None


class Devices:
    """Link and recovery codes of the players of one server's store."""

    def __init__(self, store: AsyncStore, players: Players, lifetime: float,
                 make: Limiter, claim: Limiter) -> None:
        self.store = store
        self.players = players
        #: how long a link code may be claimed, in seconds
        self.lifetime = lifetime
        #: codes made, per player and per address; claims tried, per address
        self._make = make
        self._claim = claim

    async def _player(self, key: str | None) -> tuple[PlayerRow, str]:
        player = await self.players.player_of(key)
        if player is None or key is None:
            raise ApiError(401, "this needs your player key (X-Player-Key: KEY)")
        return player, key

    async def make(self, kind: str, key: str | None, client: str,
                   page: str | None = None) -> dict[str, Any]:
        """A new code of ``kind`` for the player whose key is ``key``, in place of their
        earlier one of that kind: ``{"code", "kind", "expires"}`` (``expires``: None for a
        recovery code), and for a link code ``url``, the link page at ``page`` with the
        code in it, and ``qr``, that URL's QR code. The code is shown once; the store keeps
        only its hash."""
        assert kind in KINDS, kind
        player, key = await self._player(key)
        await take(self._make, f"player {player.id}", "device codes")
        await take(self._make, client, "device codes")
        code = new_code(LINK_LENGTH if kind == "link" else RECOVERY_LENGTH)
        expires = self.players.clock() + self.lifetime if kind == "link" else None
        with unavailable("the code could not be saved", "could not store a device code"):
            await self.store.put_code(code_hash(code), player.id, kind, seal(key, code),
                                      expires)
        made: dict[str, Any] = {"code": shown_code(code), "kind": kind, "expires": expires}
        if kind == "link" and page is not None:
            made["url"] = f"{page}#c={shown_code(code)}"
            made["qr"] = link_qr(made["url"])
        return made

    async def claim(self, text: Any, client: str) -> dict[str, Any]:
        """The player a code stands for, with their key, for the device that typed it:
        ``{"id", "name", "key", "kind"}``. A link code works once, until it expires; a
        recovery code until a new one replaces it. 404 for a code that is not (or no longer)
        one, whichever the reason; 429 for too many tries from the address."""
        await take(self._claim, client, "code tries")
        code = normal_code(text)
        if code is None:
            raise ApiError(422, "a code is 8 letters and digits (a link code) or 16 (a "
                                "recovery code), as your other device or your note shows it")
        kind = "link" if len(code) == LINK_LENGTH else "recovery"
        with unavailable("the code could not be checked", "could not claim a device code"):
            found = await self.store.claim_code(code_hash(code), kind, self.players.clock())
        key = None if found is None else unseal(found.sealed, code)
        player = None if key is None else await self._owner(key)
        if player is None or key is None:
            raise ApiError(404, f"this code is not one, or no longer: a link code works "
                                f"once, for {self.lifetime / 60:g} minutes; make a new one "
                                f"on your other device")
        return {"id": player.id, "name": player.name, "key": key, "kind": kind}

    async def _owner(self, key: str) -> PlayerRow | None:
        """The player whose key ``key`` is, None if nobody's now (forgotten since)."""
        try:
            return await self.players.player_of(key)
        except ApiError as exc:
            if exc.status == 401:
                return None
            raise

    async def status(self, player: PlayerRow) -> dict[str, Any]:
        """Whether the player could come back without this device: ``{"recovery": bool,
        "linked": devices linked}``."""
        with unavailable("the player could not be read", "could not read a player's codes"):
            codes = await self.store.codes_of(player.id)
        return {"recovery": codes.recovery, "linked": codes.linked}
