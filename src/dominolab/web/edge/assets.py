"""The page and its static files, cached by how they change (docs/web.md, "Compression and
caching").

The whole static tree is served under a prefix named by a hash of its contents,
``/static/<version>/js/app.js``: the page, served ``no-cache`` with the prefix written into
it, loads every file from there, and the scripts' relative imports (ES modules, no build
step) stay inside it, so one hash names every file at once. What is under the prefix never
changes, so it is marked ``immutable`` for a year; a new release has a new prefix, and an
old prefix is a 404, never an old file marked immutable.

The versioned files are read once, at start, and served from memory: what is served is
exactly what was hashed, even if the files on disk change under a running server. Each is
compressed the first time a browser asks for it in an encoding, at the encoding's best
level (in a worker thread: Brotli's best takes about half a second for the largest
script), and that copy is kept; browsers that ask for it while it is being made (every
browser at once, after a release) wait for that one copy. The same files stay at their
plain ``/static/...`` addresses, read from disk and revalidated on each use
(``no-cache``), for links from outside the page.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

import brotli
import zstandard
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the static tree beside this package: the page, its scripts, styles and icon
STATIC: Final = Path(__file__).parent.parent / "static"
#: where the page's files are served, under the tree's version
STATIC_PATH: Final = "/static"
#: files under the versioned prefix: kept a year, never revalidated
IMMUTABLE: Final = "public, max-age=31536000, immutable"
#: the page and the plain static addresses: kept, but asked about again before each use
REVALIDATE: Final = "no-cache"
#: how many hex digits of the tree's SHA-256 name its version (64 bits)
VERSION_DIGITS: Final = 16
#: files smaller than this are sent as they are
COMPRESS_FROM: Final = 500

#: the encodings a versioned file is sent in, the smallest first (each at its best level:
#: over this tree Brotli 11 gives 91 KB, Zstandard 19 101 KB, gzip 9 105 KB of 338 KB)
ENCODERS: Final[Mapping[str, Callable[[bytes], bytes]]] = MappingProxyType({
    "br": lambda data: brotli.compress(data, quality=11),
    "zstd": lambda data: zstandard.ZstdCompressor(level=19).compress(data),
    "gzip": lambda data: gzip.compress(data, compresslevel=9, mtime=0),
})


class AssetsError(ValueError):
    """The static tree cannot be served: it or its page is missing or unreadable."""


def read_tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory``, by its path inside it (``js/app.js``)."""
    return {path.relative_to(directory).as_posix(): path.read_bytes()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def tree_version(files: Mapping[str, bytes]) -> str:
    """A hash of the files' names and contents (the first :data:`VERSION_DIGITS` hex
    digits of a SHA-256): any change to any file changes it, and the same files give the
    same version on every server."""
    digest = hashlib.sha256()
    for name in sorted(files):
        content = files[name]
        digest.update(b"%d:%s%d:" % (len(name.encode()), name.encode(), len(content)))
        digest.update(content)
    return digest.hexdigest()[:VERSION_DIGITS]


def accepted_encoding(accept_encoding: str) -> str | None:
    """The first of :data:`ENCODERS` that an ``Accept-Encoding`` header accepts (a coding
    or ``*`` with a quality above 0), or None: send the bytes as they are."""
    accepted: dict[str, bool] = {}
    for item in accept_encoding.split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        accepted[coding.lower()] = quality > 0
    for coding in ENCODERS:
        if accepted.get(coding, accepted.get("*", False)):
            return coding
    return None


class Assets:
    """The static tree as served: its ``version``, its ``files`` and the ``page``
    (``index.html`` with every ``"/static/`` address moved under the version). The
    compressed copies of the files fill in as browsers ask for them."""

    __slots__ = ("_encoded", "_encoding", "files", "page", "version")

    def __init__(self, files: Mapping[str, bytes]) -> None:
        if "index.html" not in files:
            raise AssetsError("the web app's static files have no index.html")
        self.files: Final = MappingProxyType(dict(files))
        self.version: Final = tree_version(self.files)
        try:
            html = self.files["index.html"].decode("utf-8")
        except UnicodeDecodeError:
            raise AssetsError("the web app's index.html is not UTF-8 text") from None
        self.page: Final = html.replace(f'"{STATIC_PATH}/', f'"{self.prefix}/').encode()
        self._encoded: dict[tuple[str, str], bytes] = {}
        #: the copies being made now, which later askers wait for rather than make again
        self._encoding: dict[tuple[str, str], asyncio.Future[bytes]] = {}

    @classmethod
    def load(cls, directory: Path = STATIC) -> Assets:
        """The tree in ``directory``, read now (raises :class:`AssetsError` if it or its
        ``index.html`` cannot be read)."""
        if not directory.is_dir():
            raise AssetsError(f"the web app's static files are missing: {directory} is not "
                              f"a directory")
        try:
            return cls(read_tree(directory))
        except OSError as exc:
            raise AssetsError(f"cannot read the web app's static files in {directory}: "
                              f"{exc}") from None

    @property
    def prefix(self) -> str:
        """The versioned prefix, ``/static/<version>``."""
        return f"{STATIC_PATH}/{self.version}"

    @property
    def etag(self) -> str:
        """The page's validator: weak, as its bytes differ by the encoding it is sent in."""
        return f'W/"{self.version}"'

    def page_response(self, request: Request, headers: Mapping[str, str]) -> Response:
        """The page with ``headers``, or 304 with none of its bytes when the browser's copy
        (``If-None-Match``) is this version's."""
        all_headers = {**headers, "Cache-Control": REVALIDATE, "ETag": self.etag}
        asked = request.headers.get("if-none-match", "")
        if any(tag.strip() in (self.etag, self.etag[2:], "*") for tag in asked.split(",")):
            return Response(status_code=304, headers=all_headers)
        return Response(self.page, media_type="text/html", headers=all_headers)

    async def file_response(self, request: Request) -> Response:
        """The versioned file at ``{path}``, in the best encoding the browser accepts, kept
        a year; 404 (revalidated, so never kept) for a path not in the tree."""
        name = request.path_params["path"]
        content = self.files.get(name)
        if content is None:
            return PlainTextResponse("Not Found", status_code=404,
                                     headers={"Cache-Control": REVALIDATE})
        headers = {"Cache-Control": IMMUTABLE, "Vary": "Accept-Encoding",
                   "X-Content-Type-Options": "nosniff"}
        coding = accepted_encoding(request.headers.get("accept-encoding", ""))
        if coding is not None and len(content) >= COMPRESS_FROM:
            content = await self._encoded_copy(name, coding, content)
            headers["Content-Encoding"] = coding
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        return Response(content, media_type=media_type, headers=headers)

    async def _encoded_copy(self, name: str, coding: str, content: bytes) -> bytes:
        """The file ``name`` (``content``) in ``coding``: the kept copy, or the one being
        made now, or a new one made in a worker thread. The making is shielded, so that a
        browser that goes away does not cancel it for the others."""
        key = (name, coding)
        kept = self._encoded.get(key)
        if kept is not None:
            return kept
        making = self._encoding.get(key)
        if making is None:
            making = self._encoding[key] = asyncio.ensure_future(
                run_in_threadpool(ENCODERS[coding], content))
            making.add_done_callback(lambda done: self._made(key, done))
        return await asyncio.shield(making)

    def _made(self, key: tuple[str, str], done: asyncio.Future[bytes]) -> None:
        """A copy is made (or failed: the next browser to ask tries again)."""
        del self._encoding[key]
        if not done.cancelled() and done.exception() is None:
            self._encoded[key] = done.result()


class Revalidated:
    """Marks every answer of ``app`` (the plain static files) :data:`REVALIDATE`, its
    refusals (404, 405) included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", [])
                        if k.lower() != b"cache-control"]
                message = {**message,
                           "headers": [*kept, (b"cache-control", REVALIDATE.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_header)
        except HTTPException as exc:
            refusal = PlainTextResponse(str(exc.detail), status_code=exc.status_code,
                                        headers={**(exc.headers or {}),
                                                 "Cache-Control": REVALIDATE})
            await refusal(scope, receive, send)
