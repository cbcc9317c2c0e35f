"""Players without passwords (issue 15, item 1; docs/web.md, "Players"): a checked display
name, a secret key the browser keeps (sent as a header, never in a URL), the players of a
game's seats in its state, and a player's page listing their finished matches."""

from __future__ import annotations

import random
import sqlite3
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import icu
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from dominolab.web.community.names import (
    ALPHABET,
    MAX_LENGTH,
    MIN_LENGTH,
    RESERVED,
    NameRefused,
    check_name,
    skeleton,
)
from dominolab.web.edge.app import create_app
from dominolab.web.limits import Limits
from players_support import register
from web_support import as_player, database_at, play_out, seeded_app

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(seeded_app(tmp_path / "games.sqlite3", seed=15)) as c:
        yield c


#: "COMPUTER HARD" in Latin small capitals, the issue's first imitation
SMALL_CAPITALS = "\u1d04\u1d0f\u1d0d\u1d18\u1d1c\u1d1b\u1d07\u0280 \u029c\u1d00\u0280\u1d05"


# -- names -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shown", [
    ("Ala", "Ala"), ("  Zażółć   gęślą ", "Zażółć gęślą"), ("jan_kowalski-2", "jan_kowalski-2"),
    ("A.B.C", "A.B.C"),
    ("\uff37\uff49\uff44\uff45\uff4c\uff45\uff43", "Widelec"),  # full-width, composed
    ("Zaz\u0307o\u0301\u0142c\u0301", "Zażółć"),  # written with combining accents, composed
    ("Ala\u00a0Kot", "Ala Kot"),  # a no-break space is a space
])
def test_good_names_are_kept_as_shown(name: str, shown: str) -> None:
    assert check_name(name) == shown


@pytest.mark.parametrize("name", [
    "Łukasz Żółć", "Jürgen", "Große Straße", "François", "Ñúñez", "João", "Dvořák",
    "Ľubomír Šťastný", "Søren Ærø", "Åsa Öberg", "Þóra Guðrún", "Őrs Szűcs", "Ștefan Țară",
    "Đurđica", "Jūratė", "Līga Ķēniņa", "Cœur", "Niccolò", "Erdoğan",
])
def test_real_european_names_are_accepted(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name, why", [
    ("ab", "3 to 20"), ("x" * 21, "3 to 20"), (17, "text"), ("", "3 to 20"),
    ("Дмитрий", "Latin letters"), ("Ala😀", "Latin letters"), ("a<b>c", "Latin letters"),
    ("-ala", "starts and ends"), ("ala.", "starts and ends"), ("a  -b", "in a row"),
    ("a._b", "in a row"), ("ala\u200bma", "Latin letters"),
    # nobody passes for the computer, in any case, spacing or disguise
    ("Computer", "computer"), ("the computer", "computer"), ("C0MPUTER", "computer"),
    ("c.o.m.p.u.t.e.r", "computer"), ("Kompùter", "komputer"), ("c0mpu7er 2", "computer"),
    ("Dominolab", "dominolab"),
    # Unicode's confusables, which no hand-made table had: m is rn, and I is l is i
    ("Cornputer", "computer"), ("AdmIn", "admin"), ("Admln", "admin"),
    ("do.rni.nolab", "dominolab"),
])
def test_bad_names_are_refused_with_the_reason(name: Any, why: str) -> None:
    with pytest.raises(NameRefused, match=why):
        check_name(name)


@pytest.mark.parametrize("name, named", [
    # the imitations (small capitals, dotless i, a click letter, Latin alpha): each
    # is refused, and the message names the character
    (SMALL_CAPITALS, "LATIN LETTER SMALL CAPITAL C"),
    ("Adm\u0131n", "LATIN SMALL LETTER DOTLESS I"),
    ("Adm\u01c0n", "LATIN LETTER DENTAL CLICK"),
    ("\u0251dmin", "LATIN SMALL LETTER ALPHA"),
    # other scripts, alone or hidden in a Latin name
    ("Дмитрий", "CYRILLIC CAPITAL LETTER DE"), ("\u0410dmin", "CYRILLIC CAPITAL LETTER A"),
    ("Αλέξανδρος", "GREEK CAPITAL LETTER ALPHA"),
    ("c\u03bfmputer", "GREEK SMALL LETTER OMICRON"),
    ("山田太郎", "CJK UNIFIED IDEOGRAPH-5C71"), ("דוד כהן", "HEBREW LETTER DALET"),
    ("Ala\u202eKot", "RIGHT-TO-LEFT OVERRIDE"),
    ("Ħamrun", "LATIN CAPITAL LETTER H WITH STROKE"),
])
def test_characters_outside_the_alphabet_are_named(name: str, named: str) -> None:
    with pytest.raises(NameRefused, match="Latin letters") as refused:
        check_name(name)
    code = f"U+{ord(unicodedata.lookup(named)):04X}"
    assert f"({named}, {code})" in str(refused.value)


def test_names_that_look_alike_have_one_skeleton() -> None:
    assert skeleton("Ala Kot") == skeleton("ala_kot") == skeleton("ALA-K0T") == skeleton("Ąla.Kot")
    assert skeleton("Marta") == skeleton("Rnarta") == skeleton("MÁRTA")
    assert skeleton("Łukasz") == skeleton("Lukasz") and skeleton("Søren") == skeleton("Soren")
    assert skeleton("Ala") != skeleton("Ola")
    # a skeleton is Unicode's (UTS #39) at heart: what ICU counts one shape is one here
    # (Cyrillic a; Cyrillic dze, es, o, er, ie; Greek capital iota)
    for a, b in [("paypal", "p\u0430yp\u0430l"), ("scope", "\u0455\u0441\u043e\u0440\u0435"),
                 ("\u0399", "l"), ("0", "O")]:
        assert skeleton(a) == skeleton(b)


def lookalikes() -> dict[str, tuple[str, ...]]:
    """Each letter of the reserved words, with every text that Unicode's confusables table
    (as ICU holds it) gives the letter's shape, in either case: every code point of that
    skeleton, and the skeleton itself when it is not one character (``rn`` for ``m``)."""
    letters = sorted({ch for word in RESERVED for ch in word})
    wanted = {SPOOF.getSkeleton(0, form): letter
              for letter in letters for form in (letter, letter.upper())}
    found: dict[str, set[str]] = {letter: {letter, letter.upper()} for letter in letters}
    for shape, letter in wanted.items():
        if len(shape) > 1:
            found[letter].add(shape)
    for point in range(sys.maxunicode + 1):
        ch = chr(point)
        if unicodedata.category(ch) in ("Cn", "Cs", "Co"):
            continue
        shaped = wanted.get(SPOOF.getSkeleton(0, ch))
        if shaped is not None:
            found[shaped].add(ch)
    return {letter: tuple(sorted(shapes)) for letter, shapes in found.items()}


SPOOF = icu.SpoofChecker()
LOOKALIKES = lookalikes()


def test_the_confusables_table_is_really_there() -> None:
    # a table of a few hand-picked lookalikes would make the property below say little
    assert all(len(shapes) >= 14 for shapes in LOOKALIKES.values())
    # m: small roman numeral one thousand, mathematical bold m; i: dotless, small capital,
    # Cyrillic
    assert {"rn", "\u217f", "\U0001d426"} <= set(LOOKALIKES["m"])
    assert {"\u0131", "\u026a", "\u0456"} <= set(LOOKALIKES["i"])


@st.composite
def imitations(draw: st.DrawFn) -> str:
    """A reserved word written with lookalikes of its letters, perhaps spaced out and
    perhaps inside a longer name."""
    word = draw(st.sampled_from(RESERVED))
    parts = [draw(st.sampled_from(LOOKALIKES[letter])) for letter in word]
    gap = draw(st.sampled_from(["", "", " ", "_", "-", "."]))
    before = draw(st.sampled_from(["", "the ", "Mr ", "2"]))
    after = draw(st.sampled_from(["", " 1", "PL", "_fan"]))
    return before + gap.join(parts) + after


@settings(max_examples=400, deadline=None, derandomize=True)
@given(imitations())
def test_lookalikes_of_reserved_words_are_refused(name: str) -> None:
    composed = " ".join(unicodedata.normalize("NFKC", name).split())
    assume(MIN_LENGTH <= len(composed) <= MAX_LENGTH)
    with pytest.raises(NameRefused) as refused:
        check_name(name)
    # what the alphabet lets through, the skeleton must catch
    if all(ch in ALPHABET for ch in composed):
        assert "may not contain" in str(refused.value)
    else:
        assert "Latin letters" in str(refused.value)


def test_every_single_lookalike_in_a_reserved_word_is_refused() -> None:
    refused = 0
    for word in RESERVED:
        for at, letter in enumerate(word):
            for shape in LOOKALIKES[letter]:
                with pytest.raises(NameRefused):
                    check_name(word[:at] + shape + word[at + 1:])
                refused += 1
    assert refused > 1000


# -- the API ---------------------------------------------------------------------------------

def test_a_player_is_made_once_per_name_and_known_by_its_key(client: TestClient,
                                                             tmp_path: Path) -> None:
    made = register(client, "Ala Kot")
    assert set(made) == {"id", "name", "key"} and made["name"] == "Ala Kot"
    r = client.get("/api/me", headers=as_player(made["key"]))
    assert r.status_code == 200 and r.json() == {"id": made["id"], "name": "Ala Kot", "live": [],
                                                 "recovery": False, "linked": 0}
    # a name too like one taken is taken
    r = client.post("/api/players", json={"name": "ala_k0t"})
    assert r.status_code == 409 and "taken" in r.json()["error"]
    r = client.post("/api/players", json={"name": "Computer"})
    assert r.status_code == 422 and "computer" in r.json()["error"]
    # the server keeps only the key's hash
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    stored = db.execute("SELECT name, key_hash FROM players").fetchall()
    assert stored == [("Ala Kot", stored[0][1])] and made["key"] not in stored[0][1]


def test_the_api_refuses_imitations_with_the_reason(tmp_path: Path) -> None:
    app = create_app(tmp_path / "g.sqlite3", computer_delay=0,
                     limits=Limits(players_per_minute=60, players_burst=20))
    with TestClient(app) as client:
        refuses_imitations(client)


def refuses_imitations(client: TestClient) -> None:
    for name, named in [(SMALL_CAPITALS, "SMALL CAPITAL C"),
                        ("Adm\u0131n", "DOTLESS I"),
                        ("Adm\u01c0n", "DENTAL CLICK"), ("\u0251dmin", "LATIN SMALL LETTER ALPHA"),
                        ("Cornputer", "'computer'"), ("\u0410dmin", "CYRILLIC CAPITAL LETTER A")]:
        r = client.post("/api/players", json={"name": name})
        assert r.status_code == 422 and named in r.json()["error"], (name, r.text)
    register(client, "Marta")
    for name in ("Rnarta", "MARTA", "Márta", "m.a.r.t.a"):
        r = client.post("/api/players", json={"name": name})
        assert r.status_code == 409 and "taken" in r.json()["error"], (name, r.text)
    assert register(client, "Łukasz Żółć")["name"] == "Łukasz Żółć"
    assert client.post("/api/players", json={"name": "Lukasz Zolc"}).status_code == 409


def test_keys_are_checked(client: TestClient) -> None:
    assert client.get("/api/me").status_code == 401
    r = client.get("/api/me", headers=as_player("nobodys-key"))
    assert r.status_code == 401 and "nobody" in r.json()["error"]
    # a game cannot be made with a key that is nobody's (the page then forgets it)
    r = client.post("/api/games", json={"opponent": "easy"}, headers=as_player("nobodys-key"))
    assert r.status_code == 401
    assert client.get("/api/players/nobody123").status_code == 404
    assert client.get("/api/players/..%2F..%2Fetc").status_code == 404


def test_new_players_are_rate_limited(tmp_path: Path) -> None:
    app = create_app(tmp_path / "g.sqlite3", computer_delay=0,
                     limits=Limits(players_per_minute=1, players_burst=2))
    with TestClient(app) as client:
        register(client, "one1")
        register(client, "two2")
        r = client.post("/api/players", json={"name": "three"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        # a refused name costs nothing
        assert client.post("/api/players", json={"name": "x"}).status_code == 422


def test_a_friend_match_between_players_shows_on_both_pages(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    r = client.post("/api/games", json={"opponent": "friend", "game": "luzak-line",
                                        "options": {"target": 20}},
                    headers=as_player(ala["key"]))
    made = r.json()
    assert made["state"]["players"] == [{"id": ala["id"], "name": "Ala"}, None]
    invite = made["invite"].split("#i=", 1)[1]
    r = client.post(f"/api/games/{made['id']}/join", json={"invite": invite},
                    headers=as_player(ola["key"]))
    joined = r.json()
    both = [{"id": ala["id"], "name": "Ala"}, {"id": ola["id"], "name": "Ola"}]
    assert joined["state"]["players"] == both
    final = play_out(client, made["id"], (made["token"], joined["token"]), random.Random(3))
    winner = final["match_result"]["winner"]
    # the match is on both players' pages, each from their side, and its replay is public
    for seat, who in enumerate((ala, ola)):
        page = client.get(f"/api/players/{who['id']}").json()
        assert page["name"] == who["name"]
        [match] = page["matches"]
        assert match["id"] == made["id"] and match["seat"] == seat
        assert match["opponent"] == both[1 - seat]
        assert match["outcome"] == ("drawn" if winner is None else
                                    "won" if winner == seat else "lost")
        assert match["points"] == [final["totals"][seat], final["totals"][1 - seat]]
        assert match["ended_by"] == "play"
    r = client.get(f"/api/games/{made['id']}/replay")
    assert r.status_code == 200 and r.json()["frames"]
    # a rematch keeps the players
    r = client.post(f"/api/games/{made['id']}/rematch", json={},
                    headers={"Authorization": f"Bearer {made['token']}"})
    assert r.json()["state"]["players"] == both


def test_an_unfinished_games_replay_stays_closed(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "easy", "first": "me"}).json()
    for headers in ({}, {"Authorization": f"Bearer {made['token']}"}):
        r = client.get(f"/api/games/{made['id']}/replay", headers=headers)
        assert r.status_code == 409 and "once the match is over" in r.json()["error"]


def test_anonymous_games_work_as_before(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "easy", "first": "me"}).json()
    assert made["state"]["players"] == [None, None]


def test_games_stored_before_players_existed_load_with_no_players(tmp_path: Path) -> None:
    from dominolab.web.storage.store import Store

    path = tmp_path / "v3.sqlite3"
    with database_at(path, 3) as db:  # 4 brings the players
        db.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
                   "token0, token1, rules_version, created, updated, finished) VALUES "
                   "('oldgame01', 'luzak', '{}', 7, 0, 'computer', 'easy', 'h0', '', 1, 1.0, "
                   "1.0, 0)")
    store = Store(path)
    loaded = store.load_game("oldgame01")
    assert loaded is not None
    row, moves = loaded
    assert row.players == (None, None) and row.result is None and moves == []
    store.close()


def test_names_stored_under_an_older_key_are_keyed_again_at_start(tmp_path: Path) -> None:
    """Names registered before the confusable skeleton (keyed the old way: ``marta``, not
    ``rnarta``) are keyed again when a server starts: the earlier player takes the new key,
    a later one whose new key is held keeps its old key or, were that held too, one of its
    own, nobody loses a name, and the
    look-alikes of both are taken. Once keyed, a start reads nothing again."""
    from dominolab.web.community.names import KEYS_VERSION
    from dominolab.web.storage.store import Store

    path = tmp_path / "old-keys.sqlite3"
    store = Store(path)  # today's schema, with keys written as an older server wrote them
    store._db.executemany(
        "INSERT INTO players (id, name, skeleton, key_hash, created) VALUES (?, ?, ?, ?, ?)",
        [("p-marta", "Marta", "marta", "h1", 1.0), ("p-rnarta", "Rnarta", "rnarta", "h2", 2.0),
         ("p-soren", "Søren", "søren", "h3", 3.0), ("p-ala", "Ala", skeleton("Ala"), "h4", 4.0)])
    store.close()

    app = create_app(path, computer_delay=0,
                     limits=Limits(players_per_minute=60, players_burst=20))
    with TestClient(app) as client:  # the server's start keys them again
        for name in ("Marta", "Rnarta", "Søren", "Soren", "S0ren", "Ala"):
            r = client.post("/api/players", json={"name": name})
            assert r.status_code == 409 and "taken" in r.json()["error"], (name, r.text)
    store = Store(path)
    keys = dict(store._db.execute("SELECT id, skeleton FROM players").fetchall())
    # Rnarta's old key is Marta's new one, so it keeps a key of its own; its look-alikes
    # clash with Marta
    assert keys == {"p-marta": skeleton("Marta"), "p-rnarta": "#p-rnarta",
                    "p-soren": skeleton("Søren"), "p-ala": skeleton("Ala")}
    assert store.rekey_players(skeleton, KEYS_VERSION) == 0  # done once, not at every start
    assert store.rekey_players(lambda name: name.upper(), "another way") == 4
    store.close()
