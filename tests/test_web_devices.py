"""A player's games on any device, without passwords (issue 41, must-have 1; docs/web.md,
"Your games on any device"): a one-time link code made on a device with the key and claimed
once on another, a recovery code that restores the key until a new one replaces it, both on
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.web.community.devices import (
    CODE_ALPHABET,
    code_hash,
    link_qr,
    normal_code,
    seal,
    unseal,
)
from dominolab.web.limits import Limits
from dominolab.web.storage.store import Store
from players_support import register
from web_support import Clock, as_player, seeded_app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(any_db: str, clock: Clock) -> Iterator[TestClient]:
    with TestClient(seeded_app(any_db, seed=41, clock=clock,
                               limits=Limits(claims_burst=4, claims_per_minute=1.0))) as c:
        yield c


def link_code(client: TestClient, key: str) -> dict[str, Any]:
    r = client.post("/api/me/link", headers=as_player(key))
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def claim(client: TestClient, code: str, address: str | None = None) -> Any:
    """Claim ``code`` from the test client's address, or from ``address``."""
    if address is not None:
        client = TestClient(client.app, client=(address, 50000))
    return client.post("/api/codes", json={"code": code})


def test_a_link_code_gives_the_second_device_the_same_player_once(client: TestClient,
                                                                  clock: Clock) -> None:
    ala = register(client, "Ala")
    made = link_code(client, ala["key"])
    assert made["kind"] == "link" and made["expires"] == clock.now + 600
    shown = made["code"]
    assert len(shown) == 9 and shown[4] == "-"
    assert all(c in CODE_ALPHABET for c in shown.replace("-", ""))
    # the link page with the code in it, and its QR code for a phone's camera
    assert made["url"] == f"http://testserver/link#c={shown}"
    assert made["qr"] == link_qr(made["url"]) and made["qr"].startswith("data:image/svg+xml")
    before = client.get("/api/me", headers=as_player(ala["key"])).json()
    assert before["linked"] == 0 and before["recovery"] is False
    # typed by hand on the phone: small letters, no dash
    r = claim(client, shown.replace("-", "").lower())
    assert r.status_code == 200, r.text
    assert r.json() == {"id": ala["id"], "name": "Ala", "key": ala["key"], "kind": "link"}
    me = client.get("/api/me", headers=as_player(r.json()["key"])).json()
    assert me["id"] == ala["id"] and me["linked"] == 1
    # claimed once only
    again = claim(client, shown)
    assert again.status_code == 404, again.text
    assert "no longer" in again.json()["error"]


def test_an_expired_link_code_is_refused_and_swept(client: TestClient, clock: Clock,
                                                   any_db: str) -> None:
    ala = register(client, "Ala")
    code = link_code(client, ala["key"])["code"]
    clock.now += 601
    assert claim(client, code).status_code == 404
    store = Store(any_db, clock=clock)
    try:
        fresh = link_code(client, register(client, "Bolek")["key"])["code"]
        assert store.expire_codes(clock.now) == 1  # Ala's, unclaimed; Bolek's kept
        assert claim(client, fresh).status_code == 200
    finally:
        store.close()


def test_a_new_link_code_replaces_the_one_before(client: TestClient) -> None:
    ala = register(client, "Ala")
    first = link_code(client, ala["key"])["code"]
    second = link_code(client, ala["key"])["code"]
    assert claim(client, first).status_code == 404
    assert claim(client, second).json()["key"] == ala["key"]


def test_wrong_codes_are_refused_then_rate_limited_per_address(client: TestClient) -> None:
    ala = register(client, "Ala")
    code = link_code(client, ala["key"])["code"]
    wrong = "ZZZZ-ZZZZ" if code != "ZZZZ-ZZZZ" else "YYYY-YYYY"
    assert claim(client, wrong).status_code == 404
    for bad in ("", "ABC", "ABCD-EFG!", 12345678):
        r = claim(client, bad)  # type: ignore[arg-type]
        assert r.status_code in (422, 429), r.text
    r = claim(client, code)  # the right code, but this address has tried too often
    assert r.status_code == 429, r.text
    assert int(r.headers["retry-after"]) >= 1
    # another address still claims it
    assert claim(client, code, address="10.0.0.2").status_code == 200


def test_codes_need_a_player_key_and_are_limited_per_player(client: TestClient) -> None:
    assert client.post("/api/me/link").status_code == 401
    assert client.post("/api/me/recovery", headers=as_player("nobody")).status_code == 401
    ala = register(client, "Ala")
    answers = [client.post("/api/me/link", headers=as_player(ala["key"])).status_code
               for _ in range(7)]
    assert answers[:5] == [201] * 5 and answers[-1] == 429


def test_a_recovery_code_restores_the_player_and_a_new_one_replaces_it(
        client: TestClient) -> None:
    ala = register(client, "Ala")
    r = client.post("/api/me/recovery", headers=as_player(ala["key"]))
    assert r.status_code == 201, r.text
    first = r.json()
    assert first["kind"] == "recovery" and first["expires"] is None
    assert len(first["code"].replace("-", "")) == 16
    assert client.get("/api/me", headers=as_player(ala["key"])).json()["recovery"] is True
    # it restores the player, and again: a recovery code is not used up
    for _ in range(2):
        back = claim(client, first["code"])
        assert back.status_code == 200, back.text
        assert back.json()["key"] == ala["key"] and back.json()["kind"] == "recovery"
    second = client.post("/api/me/recovery", headers=as_player(ala["key"])).json()
    assert second["code"] != first["code"]
    assert claim(client, first["code"], address="10.0.0.3").status_code == 404
    assert claim(client, second["code"], address="10.0.0.3").json()["id"] == ala["id"]


def test_the_store_keeps_neither_the_code_nor_the_key(client: TestClient, any_db: str
                                                      ) -> None:
    ala = register(client, "Ala")
    code = client.post("/api/me/recovery", headers=as_player(ala["key"])).json()["code"]
    store = Store(any_db)
    try:
        with store._lock:
            rows = store._db.execute("SELECT code_hash, sealed FROM player_codes").fetchall()
    finally:
        store.close()
    [(stored_hash, sealed)] = rows
    plain = normal_code(code)
    assert plain is not None and stored_hash == code_hash(plain)
    assert plain not in str(rows) and ala["key"] not in str(rows)
    assert bytes.fromhex(sealed) != ala["key"].encode()
    assert unseal(sealed, plain) == ala["key"]
    assert unseal(sealed, "ZZZZZZZZ") != ala["key"]


@pytest.mark.parametrize("typed, plain", [
    ("abcd-efgh", "ABCDEFGH"), (" ABCD EFGH ", "ABCDEFGH"), ("oil1-0000", "0111" "0000"),
    ("ABCD-EFGH-JKMN-PQRS", "ABCDEFGHJKMNPQRS"),
])
def test_codes_are_read_as_typed(typed: str, plain: str) -> None:
    assert normal_code(typed) == plain


@pytest.mark.parametrize("typed", ["", "ABCDEFG", "ABCDEFGHJ", "ABCD-EFGU", None, 12, "Ą" * 8])
def test_what_cannot_be_a_code_is_none(typed: Any) -> None:
    assert normal_code(typed) is None


def test_a_sealed_key_opens_with_its_code_only() -> None:
    sealed = seal("k" * 32, "ABCDEFGH")
    assert unseal(sealed, "ABCDEFGH") == "k" * 32
    assert unseal("not hex", "ABCDEFGH") is None
