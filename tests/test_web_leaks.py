"""Nothing leaked (RULES.md section 1, hidden information; issue: "no message or response
sent to a seat ever contains the opponent's tiles, the unused tiles or the boneyard's", and
"spectators receive only public information").

Whole matches of every game are played through the web API, against a friend (both seats
scripted) and against the computer, and watched all along by a spectator's socket while
the spectator's endpoint (``GET /api/games/ID/watch``) is polled; every WebSocket message
and every HTTP response a seat or the spectator receives is kept. Afterwards the stored
moves are replayed to learn, for each payload, which tiles its receiver could not see at
that moment (a seat: the opponent's, the unused and the boneyard's; the spectator: both
hands' too), and every text in the payload is searched for them. Tiles the end of a hand
makes public (Widelec's bonus quartets) are allowed in the parts about that hand.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.core import TILES, Hand, Match, Tile, get_game
from web_support import seeded_app

#: two pip digits standing alone: a tile ("54") or the tile of a move ("54@1e"), but not a
#: port ("@10e") or a quartet ("3456")
TILE_IN_TEXT = re.compile(r"(?<![0-9@])([0-6])([0-6])(?![0-9])")
TILE_IN_MESSAGE = re.compile(r"\[([0-6])\|([0-6])\]|(?<![0-9])([0-6])([0-6])@")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(seeded_app(tmp_path / "leaks.sqlite3", seed=2026)) as c:
        yield c


#: the receiver of a spectator's payloads, in place of a seat
SPECTATOR = None


def hidden_at_end(hand: Hand[Any], seat: int | None) -> set[Tile]:
    """What ``seat`` (None: a spectator) cannot see of a finished (or current) hand."""
    seen = {p.tile for p in hand.table_placements}
    if seat is not None:
        seen.update(hand.hands[seat])
    if hand.result is not None:
        for a, b in hand.result.bonus_quartets:
            seen.update((a, b))
    return set(TILES) - seen


def tiles_in(value: Any, pattern: re.Pattern[str] = TILE_IN_TEXT) -> Iterator[Tile]:
    for m in pattern.finditer(value):
        digits = [int(d) for d in m.groups() if d is not None]
        yield Tile(digits[0], digits[1])


def scan(value: Any, hidden: set[Tile], where: str, hands_hidden: list[set[Tile]],
         current: int) -> list[str]:
    """Every hidden tile written anywhere in ``value`` (a JSON value)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("id", "token", "invite", "port"):
                continue
            if key == "previous_hand" and item is not None:
                found += scan(item, hands_hidden[current - 2], f"{where}.{key}", hands_hidden,
                              current)
            elif key == "results":
                for i, result in enumerate(item):
                    found += scan(result, hands_hidden[result["number"] - 1],
                                  f"{where}.results[{i}]", hands_hidden, current)
            else:
                found += scan(item, hidden, f"{where}.{key}", hands_hidden, current)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += scan(item, hidden, f"{where}[{i}]", hands_hidden, current)
    elif isinstance(value, str):
        found += [f"{where}: {value!r} names hidden {t}" for t in tiles_in(value) if t in hidden]
    return found


class Recorder:
    """Keeps every payload each seat (None: the spectator) receives, with the version it
    was sent at."""

    def __init__(self) -> None:
        self.payloads: list[tuple[int | None, dict[str, Any]]] = []
        self.errors: list[tuple[int | None, int, str]] = []

    def state(self, seat: int | None, payload: dict[str, Any]) -> dict[str, Any]:
        assert payload["seat"] == seat
        if seat is SPECTATOR and "hint" not in payload:
            # nothing of a seat's own: the tile counts instead
            assert payload["hand"] is None and payload["opponent_tiles"] is None
            assert payload["legal"] == [] and payload["pending"] is None
            assert all(s["drew"] is None for s in payload["history"])
        self.payloads.append((seat, payload))
        return payload

    def spectated(self) -> int:
        return sum(1 for seat, _ in self.payloads if seat is SPECTATOR)


def watch(client: TestClient, gid: str, rec: Recorder) -> None:
    """Poll the spectator's endpoint once."""
    r = client.get(f"/api/games/{gid}/watch")
    assert r.status_code == 200, r.text
    rec.state(SPECTATOR, r.json())


def watch_to_the_end(spectator: Any, rec: Recorder) -> dict[str, Any]:
    """The spectator socket's messages up to the end of the match (every later message
    would repeat it); the last state."""
    while True:
        st = rec.state(SPECTATOR, spectator.receive_json()["state"])
        if st["match_result"] is not None:
            return st


def check(client: TestClient, gid: str, rec: Recorder, finished: bool = True) -> int:
    """Replay the stored moves and search every kept payload; returns payloads checked.
    ``finished``: the match was played to its end."""
    service = client.app.state.service  # type: ignore[attr-defined]
    loaded = service.store.sync.load_game(gid)
    assert loaded is not None
    row, moves = loaded
    spec = get_game(row.game)
    options = spec.options_class.from_dict(row.options)
    # the match after each version: replay once, keeping copies
    match = Match(spec, options, seed=row.seed, first_opener=row.first_opener)
    at_version = [match.copy()]
    for _seat, text in moves:
        match.apply(match.parse_move(text))
        at_version.append(match.copy())
    problems: list[str] = []
    for seat, payload in rec.payloads:
        then = at_version[payload["version"]]
        hands_hidden = [hidden_at_end(h, seat) for h in then.hands]
        current = hidden_at_end(then.hands[-1], seat)
        who = "spectator" if seat is SPECTATOR else f"seat {seat}"
        problems += scan(payload, current, f"{who} v{payload['version']}", hands_hidden,
                         then.hand_number)
    for seat, version, message in rec.errors:
        then = at_version[version]
        current = hidden_at_end(then.hands[-1], seat)
        problems += [f"seat {seat} error {message!r} names hidden {t}"
                     for t in tiles_in(message, TILE_IN_MESSAGE) if t in current]
    assert not problems, "\n".join(problems[:20])
    assert at_version[-1].is_over or not finished
    return len(rec.payloads) + len(rec.errors)


def try_illegal(client: TestClient, gid: str, token: str, st: dict[str, Any],
                rec: Recorder, rng: random.Random) -> None:
    """Refused moves of this seat's own tiles: their error texts are searched too."""
    if not st["hand"] or rng.random() < 0.7:
        return
    tile = rng.choice(st["hand"])
    for text in (f"{tile}@28s", f"{tile}*", "draw", f"{tile}@L"):
        r = client.post(f"/api/games/{gid}/moves", headers={"Authorization": f"Bearer {token}"},
                        json={"move": text, "version": st["version"]})
        if r.status_code != 200:
            rec.errors.append((st["seat"], st["version"], r.json()["error"]))
            return
        rec.state(st["seat"], r.json())  # it happened to be legal
        return


def play_friend_match(client: TestClient, game: str, rec: Recorder,
                      moves: int = 3000) -> str:
    """A friend match of ``game``, both seats scripted, watched by a spectator's socket, for
    at most ``moves`` moves; every payload kept in ``rec``; returns the game's id."""
    rng = random.Random(game)
    made = client.post("/api/games", json={"game": game, "opponent": "friend",
                                           "options": {"target": 40}}).json()
    joined = client.post(f"/api/games/{made['id']}/join",
                         json={"invite": made["invite"].split("#i=")[1]}).json()
    gid, tokens = made["id"], (made["token"], joined["token"])
    rec.state(0, made["state"])
    rec.state(1, joined["state"])
    watch(client, gid, rec)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
            client.websocket_connect(f"/ws/games/{gid}") as ws1, \
            client.websocket_connect(f"/ws/games/{gid}") as spectator:
        sockets = (ws0, ws1, spectator)
        receivers = (0, 1, SPECTATOR)
        latest: list[dict[str, Any]] = []
        for seat, ws in enumerate(sockets[:2]):
            ws.send_text(json.dumps({"type": "hello", "token": tokens[seat]}))
            latest.append(rec.state(seat, ws.receive_json()["state"]))
        rec.state(0, ws0.receive_json()["state"])  # seat 1 connected
        spectator.send_text(json.dumps({"type": "hello", "watch": True}))
        latest.append(rec.state(SPECTATOR, spectator.receive_json()["state"]))
        assert latest[2]["watching"] == 1 and latest[2]["connected"] == [True, True]
        for seat in (0, 1):  # the spectator came
            latest[seat] = rec.state(seat, sockets[seat].receive_json()["state"])
            assert latest[seat]["watching"] == 1
        for _ in range(moves):
            mover = next((s for s in latest[:2] if s["to_move"] == s["seat"]), None)
            if mover is None:
                break
            seat = mover["seat"]
            token = tokens[seat]
            if rng.random() < 0.2:
                rec.state(seat, client.get(f"/api/games/{gid}", headers={
                    "Authorization": f"Bearer {token}"}).json())
            if rng.random() < 0.2:
                watch(client, gid, rec)
            try_illegal(client, gid, token, mover, rec, rng)
            if rec.payloads[-1][1]["version"] > mover["version"]:
                for s, ws in zip(receivers, sockets, strict=True):  # an "illegal" try that
                    latest[2 if s is None else s] = rec.state(  # was legal
                        s, ws.receive_json()["state"])
                continue
            r = client.post(f"/api/games/{gid}/moves", headers={"Authorization":
                                                                f"Bearer {token}"},
                            json={"move": rng.choice(mover["legal"])["move"],
                                  "version": mover["version"]})
            assert r.status_code == 200, r.text
            rec.state(seat, r.json())
            for s, ws in zip(receivers, sockets, strict=True):
                latest[2 if s is None else s] = rec.state(s, ws.receive_json()["state"])
            assert latest[2]["version"] == latest[0]["version"]
    watch(client, gid, rec)
    return str(gid)


@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_friend_match_payloads_never_show_hidden_tiles(client: TestClient, game: str) -> None:
    rec = Recorder()
    gid = play_friend_match(client, game, rec)
    last = rec.payloads[-1][1]
    assert last["match_result"] is not None
    assert last["hand_number"] >= 2  # the parts about earlier hands were searched too
    assert rec.spectated() > 20
    assert check(client, gid, rec) > 50


def test_a_spectator_shown_a_seat_s_draw_would_fail(client: TestClient,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself, over the spectator's stream: a spectator's history that named the
    drawn tile (as the drawing seat sees it) is caught."""
    from dominolab.web.games import live, payload

    def leaky(game: Any, step: Any, seat: int | None) -> dict[str, Any]:
        return payload.step_json(game, step, step.seat if seat is None else seat)

    monkeypatch.setattr(live, "seen_step_json", leaky)
    rec = Recorder()

    def keep(seat: int | None, state: dict[str, Any]) -> dict[str, Any]:
        rec.payloads.append((seat, state))  # unchecked: the leak is to reach check()
        return state

    monkeypatch.setattr(rec, "state", keep)
    gid = play_friend_match(client, "widelec", rec, moves=60)
    assert any(s["drew"] for seat, p in rec.payloads if seat is SPECTATOR
               for s in p["history"])
    with pytest.raises(AssertionError, match=r"spectator v.*drew"):
        check(client, gid, rec, finished=False)


@pytest.mark.parametrize("game", ["luzak", "widelec"])
def test_computer_match_payloads_never_show_hidden_tiles(client: TestClient, game: str) -> None:
    rng = random.Random(game)
    rec = Recorder()
    made = client.post("/api/games", json={"game": game, "opponent": "easy",
                                           "options": {"target": 40}}).json()
    gid, token = made["id"], made["token"]
    rec.state(0, made["state"])
    with client.websocket_connect(f"/ws/games/{gid}") as ws, \
            client.websocket_connect(f"/ws/games/{gid}") as spectator:
        # the spectator first: its coming is then no update of seat 0's (the computer
        # may be moving meanwhile, and the loop reads seat 0's states in order)
        spectator.send_text(json.dumps({"type": "hello", "watch": True}))
        rec.state(SPECTATOR, spectator.receive_json()["state"])
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        st = rec.state(0, ws.receive_json()["state"])
        assert st["watching"] == 1
        for _ in range(3000):
            if st["match_result"] is not None:
                break
            if rng.random() < 0.2:
                watch(client, gid, rec)
            if st["to_move"] == 0:
                if st["legal"] and rng.random() < 0.3:
                    hint = client.post(f"/api/games/{gid}/hint", headers={
                        "Authorization": f"Bearer {token}"}, json={})
                    if hint.status_code == 200:
                        for h in hint.json()["moves"]:
                            rec.state(0, {"seat": 0, "version": st["version"], "hint": h})
                r = client.post(f"/api/games/{gid}/moves", headers={"Authorization":
                                                                    f"Bearer {token}"},
                                json={"move": rng.choice(st["legal"])["move"],
                                      "version": st["version"]})
                assert r.status_code == 200, r.text
                rec.state(0, r.json())
            st = rec.state(0, ws.receive_json()["state"])
        assert watch_to_the_end(spectator, rec)["version"] == st["version"]
    watch(client, gid, rec)
    assert st["match_result"] is not None
    assert rec.spectated() > 20
    assert check(client, gid, rec) > 50


def test_the_scan_would_catch_a_leak() -> None:
    """The search itself: a hidden tile in a move, a tile field or a nested list is found,
    and the same tile is allowed in the part about a hand that made it public."""
    hidden = {Tile(5, 4)}
    assert scan({"legal": [{"move": "54@1e"}]}, hidden, "s", [], 1)
    assert scan({"hand": ["11", "54"]}, hidden, "s", [], 1)
    assert not scan({"quartet": "3456", "id": "a54b", "move": "11@54e"}, hidden, "s", [], 1)
    assert not scan({"results": [{"number": 1, "bonus_quartets": [["54", "63"]]}]}, hidden,
                    "s", [set()], 2)
    assert scan({"history": [{"move": "draw", "drew": "54"}]}, hidden, "s", [], 1)
    assert list(tiles_in("seat 0 does not hold [5|4]", TILE_IN_MESSAGE)) == [Tile(5, 4)]
