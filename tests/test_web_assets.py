"""Compression and caching of the web app (docs/web.md, "Compression and caching"): the
page names its files under the static tree's version, they are kept a year and sent in the
encoding the browser accepts, an old version's address is never served as a kept file, the
page is revalidated, and the API is never kept by any cache."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest
import zstandard
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

from dominolab.web.edge.assets import (
    IMMUTABLE,
    STATIC,
    Assets,
    AssetsError,
    accepted_encoding,
    tree_version,
)
from loops import run_async
from web_support import seeded_app

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(seeded_app(tmp_path / "games.sqlite3", seed=5)) as c:
        yield c


def page_files(client: TestClient) -> list[str]:
    """The addresses of the files the page loads."""
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', client.get("/").text)


def version_of(client: TestClient) -> str:
    match = re.search(r'src="/static/([0-9a-f]+)/js/app\.js"', client.get("/").text)
    assert match, "the page does not load /static/<version>/js/app.js"
    return match.group(1)


def raw_get(client: TestClient, path: str, accept: str) -> tuple[dict[str, str], bytes]:
    """An answer's headers and its body exactly as sent (not decoded)."""
    with client.stream("GET", path, headers={"Accept-Encoding": accept}) as r:
        assert r.status_code == 200, (path, r.status_code)
        return dict(r.headers), b"".join(r.iter_raw())


# -- the page ----------------------------------------------------------------------------------

def test_the_page_loads_every_file_under_the_trees_version(client: TestClient) -> None:
    version = version_of(client)
    assert version == tree_version({p.relative_to(STATIC).as_posix(): p.read_bytes()
                                    for p in STATIC.rglob("*") if p.is_file()})
    files = page_files(client)
    assert len(files) >= 5, files
    assert all(f.startswith(f"/static/{version}/") for f in files), files
    for address in files:
        r = client.get(address)
        assert r.status_code == 200, address
        assert r.headers["cache-control"] == IMMUTABLE
        assert r.content == (STATIC / address.split("/", 3)[3]).read_bytes()


def test_the_page_is_revalidated_and_answers_304_to_its_etag(client: TestClient) -> None:
    r = client.get("/game/abcdefgh123")
    assert r.status_code == 200
    assert r.headers["cache-control"] == "no-cache"
    assert "script-src 'self'" in r.headers["content-security-policy"]
    etag = r.headers["etag"]
    again = client.get("/game/abcdefgh123", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag and again.headers["cache-control"] == "no-cache"
    stale = client.get("/", headers={"If-None-Match": 'W/"0123456789abcdef"'})
    assert stale.status_code == 200 and b"<html" in stale.content


# -- the versioned files -----------------------------------------------------------------------

@pytest.mark.parametrize(("accept", "coding", "decode"), [
    ("gzip, deflate, br, zstd", "br", brotli.decompress),
    ("gzip, zstd", "zstd", lambda b: zstandard.ZstdDecompressor().decompressobj().decompress(b)),
    ("gzip", "gzip", gzip.decompress),
    ("br;q=0, gzip;q=0.5", "gzip", gzip.decompress),
    ("*", "br", brotli.decompress),
])
def test_files_are_sent_in_the_encoding_the_browser_accepts(
        client: TestClient, accept: str, coding: str, decode: object) -> None:
    address = f"/static/{version_of(client)}/js/game.js"
    headers, body = raw_get(client, address, accept)
    assert headers["content-encoding"] == coding
    assert "accept-encoding" in headers["vary"].lower()
    assert headers["cache-control"] == IMMUTABLE
    original = (STATIC / "js" / "game.js").read_bytes()
    assert callable(decode) and decode(body) == original
    assert len(body) < len(original) // 3


@pytest.mark.parametrize("accept", ["identity", "", "br;q=0, zstd;q=0, gzip;q=0", "compress"])
def test_files_go_as_they_are_to_a_browser_that_takes_no_encoding(
        client: TestClient, accept: str) -> None:
    address = f"/static/{version_of(client)}/css/app.css"
    headers, body = raw_get(client, address, accept)
    assert "content-encoding" not in headers
    assert body == (STATIC / "css" / "app.css").read_bytes()


def test_a_small_file_is_not_compressed() -> None:
    assets = Assets({"index.html": b"<html>", "tiny.css": b"a{}", "big.css": b"a{b:c}" * 100})
    app = Starlette(routes=[Route(f"{assets.prefix}/{{path:path}}", assets.file_response)])
    with TestClient(app) as c:
        tiny = c.get(f"{assets.prefix}/tiny.css", headers={"Accept-Encoding": "br, gzip"})
        assert "content-encoding" not in tiny.headers and tiny.content == b"a{}"
        big = c.get(f"{assets.prefix}/big.css", headers={"Accept-Encoding": "br, gzip"})
        assert big.headers["content-encoding"] == "br" and big.content == b"a{b:c}" * 100


def test_browsers_asking_at_once_share_one_compression(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """After a release every browser asks for the same scripts at once: each file is
    compressed once (Brotli's best takes half a second), not once per browser."""
    import dominolab.web.edge.assets as assets_module

    calls = 0
    lock = threading.Lock()

    def counted_gzip(data: bytes) -> bytes:
        nonlocal calls
        with lock:
            calls += 1
        return gzip.compress(data, mtime=0)

    monkeypatch.setattr(assets_module, "ENCODERS", {"gzip": counted_gzip})
    big = b"a{b:c}" * 1000
    assets = Assets({"index.html": b"<html>", "big.css": big})

    def request() -> Request:
        return Request({"type": "http", "method": "GET", "path": "/x", "query_string": b"",
                        "headers": [(b"accept-encoding", b"gzip")],
                        "path_params": {"path": "big.css"}})

    async def many() -> list[bytes]:
        answers = await asyncio.gather(*(assets.file_response(request()) for _ in range(8)))
        return [bytes(answer.body) for answer in answers]

    bodies = run_async(many())
    assert calls == 1
    assert all(gzip.decompress(body) == big for body in bodies)
    run_async(many())  # later askers get the kept copy
    assert calls == 1


def test_an_old_version_or_a_missing_file_is_never_kept(client: TestClient) -> None:
    version = version_of(client)
    for address in ("/static/0123456789abcdef/js/app.js", f"/static/{version}/js/nothing.js",
                    f"/static/{version}/../pyproject.toml", f"/static/{version}/"):
        r = client.get(address)
        assert r.status_code == 404, address
        assert "immutable" not in r.headers.get("cache-control", ""), address
        assert r.headers["cache-control"] == "no-cache", address


def test_plain_static_addresses_are_revalidated(client: TestClient) -> None:
    r = client.get("/static/js/app.js")
    assert r.status_code == 200 and r.content == (STATIC / "js" / "app.js").read_bytes()
    assert r.headers["cache-control"] == "no-cache"
    assert client.get("/static/js/nothing.js").headers["cache-control"] == "no-cache"
    assert client.post("/static/js/app.js").status_code == 405


def test_what_is_served_is_what_was_read_at_start(tmp_path: Path) -> None:
    tree = tmp_path / "static"
    shutil.copytree(STATIC, tree)
    assets = Assets.load(tree)
    before = (tree / "js" / "app.js").read_bytes()
    (tree / "js" / "app.js").write_text("// changed after the start\n")
    assert Assets.load(tree).version != assets.version
    app = Starlette(routes=[Route(f"{assets.prefix}/{{path:path}}", assets.file_response)])
    with TestClient(app) as c:
        assert c.get(f"{assets.prefix}/js/app.js").content == before


def test_the_version_follows_names_and_contents() -> None:
    base = {"index.html": b"<html>", "js/a.js": b"1"}
    assert tree_version(base) == tree_version(dict(reversed(base.items())))
    assert tree_version(base) != tree_version({**base, "js/a.js": b"2"})
    assert tree_version(base) != tree_version({"index.html": b"<html>", "js/b.js": b"1"})
    # names and contents cannot run into each other
    assert tree_version({"ab": b"c"}) != tree_version({"a": b"bc"})


def test_a_tree_without_its_page_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AssetsError, match=r"index\.html"):
        Assets({"js/app.js": b""})
    with pytest.raises(AssetsError, match=re.escape(str(tmp_path / "missing"))):
        Assets.load(tmp_path / "missing")
    with pytest.raises(AssetsError, match="UTF-8"):
        Assets({"index.html": b"\xff\xfe<html>"})


@pytest.mark.parametrize(("header", "coding"), [
    ("gzip, deflate, br, zstd", "br"), ("zstd, gzip", "zstd"), ("GZIP", "gzip"),
    ("br;q=0.0, gzip", "gzip"), ("br;q=nonsense, gzip", "gzip"), ("*;q=0.1", "br"),
    ("*, br;q=0", "zstd"), ("identity", None), ("", None), ("deflate", None),
])
def test_accepted_encoding(header: str, coding: str | None) -> None:
    assert accepted_encoding(header) == coding


# -- the API -----------------------------------------------------------------------------------

@pytest.mark.parametrize("accept", ["br", "gzip", "zstd"])
def test_api_answers_are_compressed_and_never_kept(client: TestClient, accept: str) -> None:
    headers, body = raw_get(client, "/api/rules/en", accept)
    assert headers["content-encoding"] == accept
    assert headers["cache-control"] == "no-store"
    assert "etag" not in headers and "last-modified" not in headers
    decoded = {"br": brotli.decompress, "gzip": gzip.decompress,
               "zstd": lambda b: zstandard.ZstdDecompressor().decompressobj().decompress(b)}
    assert json.loads(decoded[accept](body)) == client.get("/api/rules/en").json()


def test_a_seats_state_is_never_kept(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "friend", "first": "me"}).json()
    for accept in ("br", "identity"):
        r = client.get(f"/api/games/{made['id']}", headers={
            "Authorization": f"Bearer {made['token']}", "Accept-Encoding": accept})
        assert r.status_code == 200
        assert r.headers["cache-control"] == "no-store"
        assert "etag" not in r.headers


def test_a_small_api_answer_is_not_compressed(client: TestClient) -> None:
    headers = {"Accept-Encoding": "gzip, br, zstd"}
    r = client.get("/api/no-such-thing", headers=headers)
    assert r.status_code == 404 and len(r.content) < 500
    assert "content-encoding" not in r.headers
    assert r.headers["cache-control"] == "no-store"


def test_websockets_work_beside_the_compression(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "friend", "first": "me"}).json()
    with client.websocket_connect(f"/ws/games/{made['id']}",
                                  headers={"Accept-Encoding": "gzip, br, zstd"}) as ws:
        ws.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        assert ws.receive_json()["state"]["seat"] == 0
        ws.send_text(json.dumps({"type": "ping"}))
        assert ws.receive_json() == {"type": "pong"}
