"""The review in the browser's API (docs/web.md, "Review"; issue 41, must-have 5): after each
hand and after the match, a seat's costliest moves by the expert's judgement, with how sure
that is, the better move on the table as it stood, and the seat's win chance over the
match; anyone's once the match is over, the seat's own until then, never during a rated
match; each finished hand worked out once."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.players import Budget
from dominolab.web.limits import Limits
from web_support import auth, friend_game, play_out, seeded_app, service_of

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = dataclasses.replace(Limits(), reviews_burst=2, reviews_per_minute=1.0)
    app = seeded_app(tmp_path / "games.sqlite3", seed=8, workers=0, limits=limits,
                     review_budget=Budget(worlds=80))
    with TestClient(app) as c:
        yield c


def get_review(client: TestClient, gid: str, seat: Any, token: str | None = None
               ) -> Any:
    return client.get(f"/api/games/{gid}/review", params={"seat": seat},
                      headers=auth(token) if token else {})


def first_hand(client: TestClient, gid: str, tokens: tuple[str, str],
               rng: random.Random) -> dict[str, Any]:
    """Random legal moves in a friend game until its first hand is over (the match goes
    on): seat 0's state then."""
    for _ in range(500):
        states = [client.get(f"/api/games/{gid}", headers=auth(t)).json() for t in tokens]
        if states[0]["hand_number"] > 1 or states[0]["match_result"] is not None:
            seat0: dict[str, Any] = states[0]
            return seat0
        mover = next(i for i, s in enumerate(states) if s["to_move"] == s["seat"])
        r = client.post(f"/api/games/{gid}/moves", headers=auth(tokens[mover]),
                        json={"move": rng.choice(states[mover]["legal"])["move"],
                              "version": states[mover]["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the first hand did not end in 500 moves")


def test_a_finished_matchs_review_is_anyones_with_the_table_and_the_curve(
        client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "luzak", "opponent": "easy", "first": "me",
                                        "options": {"target": 30}})
    made = r.json()
    final = play_out(client, made["id"], (made["token"],), random.Random(3))
    r = get_review(client, made["id"], 0)  # no token: the match is over
    assert r.status_code == 200, r.text
    review = r.json()
    assert review["over"] is True and review["seat"] == 0
    assert [h["hand"] for h in review["hands"]] == list(range(1, final["hand_number"] + 1))
    # random moves against the expert: something cost win chance, and the curve has a
    # point for every choice that was not forced
    assert review["costly"], review
    assert len(review["curve"]) == sum(h["choices"] for h in review["hands"])
    assert all(0 <= p["win"] <= 1 for p in review["curve"])
    losses = [c["win_loss"] for c in review["costly"]]
    assert losses == sorted(losses, reverse=True) and len(losses) <= 3
    frames = client.get(f"/api/games/{made['id']}/replay").json()["frames"]
    record = client.get(f"/api/games/{made['id']}/record", headers=auth(made["token"])).json()
    for item in review["costly"] + [c for h in review["hands"] for c in h["costly"]]:
        # the table as it stood: the replay's frame before the move, and the move played
        assert item["table"] == frames[item["frame"]]["table"]
        offset = sum(len(h["moves"]) + 1 for h in record["hands"][:item["hand"] - 1])
        played = record["hands"][item["hand"] - 1]["moves"][item["frame"] - offset]
        assert item["move"] in str(played), (item["move"], played)
        assert item["better_move"] != item["move"]
        assert re.fullmatch(r"±(\d+%|<1%)(, not sure)?", item["certainty"]), item
        assert item["better_win"] >= item["win"]
        if "@" in item["better_move"]:  # a tile laid: where it goes on the table
            assert isinstance(item["preview"], dict) and item["preview"]
    # the other seat (the computer's) is anyone's too, once over
    assert get_review(client, made["id"], 1).status_code == 200


def test_refused_during_a_rated_match_and_for_bad_seats_and_tokens(client: TestClient) -> None:
    r = client.post("/api/players", json={"name": "Ala"})
    key = r.json()["key"]
    r = client.post("/api/games", json={"game": "luzak-line", "opponent": "easy",
                                        "rated": True, "first": "me"},
                    headers={"X-Player-Key": key})
    assert r.status_code == 201, r.text
    rated = r.json()
    r = get_review(client, rated["id"], 0, rated["token"])
    assert r.status_code == 403 and "rated" in r.json()["error"]

    gid, t0, t1 = friend_game(client)
    assert get_review(client, gid, 0).status_code == 401  # going on: the seat's token
    assert get_review(client, gid, 0, t1).status_code == 403  # another seat's
    assert get_review(client, gid, 0, "nonsense").status_code == 403
    for bad in ("2", "x", "", "-1"):
        r = get_review(client, gid, bad, t0)
        assert r.status_code == 422 and "seat" in r.json()["error"], bad
    assert client.get(f"/api/games/{gid}/review", headers=auth(t0)).status_code == 422
    assert get_review(client, "nosuchgame", 0).status_code == 404
    # before any hand has ended there is nothing to review yet, and nothing is worked out
    r = get_review(client, gid, 0, t0)
    assert r.status_code == 200 and r.json()["hands"] == [] and r.json()["curve"] == []


def test_after_a_hand_its_review_is_worked_out_once_then_kept(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client, "luzak", {"target": 200})
    st = first_hand(client, gid, (t0, t1), random.Random(5))
    assert st["match_result"] is None
    reviewer = service_of(client).reviewer
    before = reviewer.worked_out
    first = get_review(client, gid, 0, t0)
    assert first.status_code == 200, first.text
    assert [h["hand"] for h in first.json()["hands"]] == [1]
    assert reviewer.worked_out == before + 1
    # asked again (and more often than the rate allows): the kept review, the same answer
    for _ in range(3):
        again = get_review(client, gid, 0, t0)
        assert again.status_code == 200 and again.json() == first.json()
    assert reviewer.worked_out == before + 1
    # the other seat's review is its own, worked out for it; then the rate is spent
    assert get_review(client, gid, 1, t1).status_code == 200
    assert reviewer.worked_out == before + 2
    r = get_review(client, gid, 0, t1)
    assert r.status_code == 403
