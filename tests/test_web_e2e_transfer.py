"""What a visit to the game page costs on the wire (docs/web.md, "Compression and
caching"), measured in Debian's Chromium through its DevTools network events: the bytes the
browser received (compressed, headers included) and the requests whose answer carried a
body over the network, on a first visit and on a repeat visit with the HTTP cache kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page

from browser import JS_HAS_VERSION, STEP_MS, Ui, friend_game_via_api, game_attr

#: the issue's targets: a first visit transfers at most this much ...
FIRST_VISIT_BYTES = 120_000
#: ... and a repeat visit fetches at most this many bodies (the game's state and the like)
REPEAT_BODIES = 3


@dataclass
class Wire:
    """One page load's network traffic as DevTools reports it."""

    #: request id -> (url, status, from a cache)
    answers: dict[str, tuple[str, int, bool]] = field(default_factory=dict)
    #: request id -> bytes received over the network (headers and encoded body)
    received: dict[str, int] = field(default_factory=dict)
    #: request id -> the answer's Content-Encoding ('' for none)
    encodings: dict[str, str] = field(default_factory=dict)
    #: request id -> the status as it came over the network (a revalidation's 304, which
    #: the response event reports as the cached 200)
    raw_status: dict[str, int] = field(default_factory=dict)

    def on_response(self, event: dict[str, Any]) -> None:
        response = event["response"]
        cached = bool(response.get("fromDiskCache") or response.get("fromMemoryCache")
                      or response.get("fromPrefetchCache"))
        self.answers[event["requestId"]] = (response["url"], int(response["status"]), cached)
        headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
        self.encodings[event["requestId"]] = headers.get("content-encoding", "")

    def on_extra_info(self, event: dict[str, Any]) -> None:
        self.raw_status[event["requestId"]] = int(event["statusCode"])

    def on_finished(self, event: dict[str, Any]) -> None:
        self.received[event["requestId"]] = int(event["encodedDataLength"])

    @property
    def bytes(self) -> int:
        return sum(self.received.values())

    def bodies(self) -> list[str]:
        """The requests whose answer brought a body over the network (not a cache's, not a
        304)."""
        return sorted(url for rid, (url, status, cached) in self.answers.items()
                      if not cached and self.raw_status.get(rid, status) not in (204, 304)
                      and rid in self.received)

    def uncompressed_text(self) -> list[str]:
        """Scripts, styles and pages over 1 KB that came over the network uncompressed."""
        found = []
        for rid, (url, status, cached) in self.answers.items():
            if cached or status != 200 or self.encodings.get(rid):
                continue
            textual = url.endswith((".js", ".css", ".svg")) or "/game/" in url
            if textual and self.received.get(rid, 0) > 1024:
                found.append(url)
        return found

    def requests(self) -> int:
        """The requests that went over the network (304s included)."""
        return sum(1 for _url, _status, cached in self.answers.values() if not cached)

    def summary(self) -> str:
        lines = [f"{self.bytes} bytes, {self.requests()} requests over the network "
                 f"({len(self.bodies())} with a body), {len(self.answers)} in all"]
        for rid, (url, status, cached) in sorted(self.answers.items(), key=lambda kv: kv[1]):
            size = "cache" if cached else self.received.get(rid, "?")
            lines.append(f"  {self.raw_status.get(rid, status)} {size} "
                         f"{self.encodings.get(rid) or '-'} {url}")
        return "\n".join(lines)


def visit(page: Page, url: str) -> Wire:
    """Open ``url`` in ``page`` (a new one) and wait until the game shows and the network is
    quiet; the traffic it took."""
    wire = Wire()
    cdp = page.context.new_cdp_session(page)
    cdp.on("Network.responseReceived", wire.on_response)
    cdp.on("Network.responseReceivedExtraInfo", wire.on_extra_info)
    cdp.on("Network.loadingFinished", wire.on_finished)
    cdp.send("Network.enable")
    page.goto(url)
    page.wait_for_function(JS_HAS_VERSION, timeout=STEP_MS)
    page.wait_for_load_state("networkidle", timeout=STEP_MS)
    return wire


def test_first_and_repeat_visit_of_the_game_page(ui: Ui, server: str) -> None:
    gid, tokens = friend_game_via_api(server, "luzak")
    page = ui.new_page("first-visit")
    with ui.guard():
        first = visit(page, f"/game/{gid}#t={tokens[0]}")
        assert game_attr(page, "seat") == "0"
        print(f"first visit: {first.summary()}")
        assert first.bytes <= FIRST_VISIT_BYTES, (
            f"the first visit transferred more than {FIRST_VISIT_BYTES} bytes: "
            f"{first.summary()}")
        assert not first.uncompressed_text(), (
            f"sent uncompressed: {first.uncompressed_text()}\n{first.summary()}")

        # a new page of the same browser context: the HTTP cache and the stored seat kept
        again = page.context.new_page()
        ui.pages.append(("repeat-visit", again, []))
        repeat = visit(again, f"/game/{gid}")
        assert game_attr(again, "seat") == "0", "the repeat visit lost the stored seat"
        print(f"repeat visit: {repeat.summary()}")
        bodies = repeat.bodies()
        assert len(bodies) <= REPEAT_BODIES, (
            f"the repeat visit fetched {len(bodies)} bodies: {bodies}\n{repeat.summary()}")
        assert not any("/static/" in url for url in bodies), (
            f"the repeat visit fetched static files again: {bodies}")
