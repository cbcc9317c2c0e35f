"""The lab run by the web app (docs/web.md, "The lab"): studies through the public API, their
files against the lab's own simulate, their report against ``dominolab report``, the lab's
limits, and a server killed mid-study that resumes it."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from dominolab.lab.report import fmt_estimate
from dominolab.lab.simfile import recover_sim_file
from dominolab.lab.simulate import make_setup, simulate_to_file
from dominolab.lab.stats import Estimate
from dominolab.web.edge.process import ServerProcess
from dominolab.web.limits import Limits
from web_support import auth, friend_game, seeded_app

SWEEP: dict[str, Any] = {"game": "luzak", "sweep": {"option": "target", "values": [31, 61, 91]},
                         "players": ["greedy", "greedy"], "matches": 200, "seed": 1}
#: the header a test names its client by (see :func:`addressed`)
ADDRESS = "x-test-address"


class Addressed:
    """An app seeing each request as from the address in its ``x-test-address`` header
    (else ``127.0.0.1``), as uvicorn gives the peer's: the lab's rules are per address."""

    def __init__(self, app: Starlette) -> None:
        self.inner = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope["headers"]).get(ADDRESS.encode(), b"127.0.0.1").decode()
            scope = {**scope, "client": (given, 50000)}
        await self.inner(scope, receive, send)


def addressed(app: Starlette) -> Addressed:
    return Addressed(app)


def studies_folder(client: TestClient) -> Path:
    """Where the app of ``client`` keeps its studies."""
    app = client.app
    assert isinstance(app, Addressed)
    folder: Path = app.inner.state.studies.folder
    return folder


def until(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    """Poll ``check()`` until it gives something true (returned), ``timeout`` s at most."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A server whose lab is open to everyone, with two worker processes."""
    folder = tmp_path_factory.mktemp("lab")
    app = seeded_app(folder / "games.sqlite3", 1, limits=Limits(lab="everyone"), workers=2)
    with TestClient(addressed(app)) as client:
        yield client


def study_state(client: TestClient, sid: str) -> dict[str, Any]:
    r = client.get(f"/api/studies/{sid}")
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def ended(client: TestClient, sid: str, timeout: float = 120) -> dict[str, Any]:
    state: dict[str, Any] = until(
        lambda: (s := study_state(client, sid))["state"] in ("done", "cancelled", "failed")
        and s, f"study {sid} ends", timeout)
    return state


def test_lab_meta_comes_from_the_options_metadata(lab: TestClient) -> None:
    from dominolab.core import GAMES

    meta = lab.get("/api/lab").json()
    assert meta["enabled"] is True and meta["why"] is None
    assert [g["name"] for g in meta["games"]] == list(GAMES)
    for game in meta["games"]:
        spec = GAMES[game["name"]]
        described = spec.options_class.describe()
        assert [o["name"] for o in game["options"]] == [n.replace("-", "_")
                                                        for n, _, _ in described]
        assert [o["text"] for o in game["options"]] == [h for _, _, h in described]
        for option in game["options"]:
            assert option["guide"].startswith(f"/rules/{game['name']}#")
    target = meta["games"][0]["options"][0]
    assert target == {**target, "kind": "int", "default": 61, "min": 1, "max": 10000}
    specs = {p["spec"] for p in meta["players"]}
    # every level plays to a budget in worlds, so each repeats its choices (hard too)
    assert {"greedy", "random", "medium", "hard", "expert:200w", "learned"} <= specs
    # and the page names each in both languages (not the server's English label)
    words = (Path(__file__).resolve().parents[1] / "src" / "dominolab" / "web" / "static"
             / "js" / "strings" / "lab.js").read_text(encoding="utf-8")
    for spec in specs:
        assert words.count(f'"lab.player.{spec.split(":")[0]}"') == 2, spec
    assert meta["limits"]["matches_per_study"] == 20_000


def test_a_sweep_runs_to_done_with_the_lab_files_and_the_report(
        lab: TestClient, tmp_path: Path) -> None:
    r = lab.post("/api/studies", json=SWEEP)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    assert r.json()["url"] == f"/lab/{sid}"
    seen: list[dict[str, Any]] = []
    with lab.websocket_connect(f"/ws/studies/{sid}") as ws:
        deadline = time.monotonic() + 120
        while not seen or seen[-1]["state"] not in ("done", "failed", "cancelled"):
            assert time.monotonic() < deadline
            seen.append(ws.receive_json())
    assert seen[-1] == {"type": "progress", "done": 600, "total": 600, "state": "done"}
    assert all(m["total"] == 600 for m in seen)
    assert [m["done"] for m in seen] == sorted(m["done"] for m in seen)
    state = study_state(lab, sid)
    assert state["state"] == "done" and state["done"] == state["total"] == 600
    assert [v["label"] for v in state["variants"]] == ["target=31", "target=61", "target=91"]
    # the same parameters, written another way, are the same study
    again = {**SWEEP, "options": {"target": 91, "even-hands": True}}
    r = lab.post("/api/studies", json=again)
    assert r.status_code == 200 and r.json()["id"] == sid
    # each file is the lab's own, byte for byte, and the command line says how
    downloads = []
    for k, target in enumerate((31, 61, 91)):
        got = lab.get(state["variants"][k]["file"])
        assert got.status_code == 200
        name = state["variants"][k]["file_name"]
        assert name in got.headers["content-disposition"].replace("%3D", "=")
        setup = make_setup("luzak", ("greedy", "greedy"), 200, 1, [f"target={target}"])
        mine = tmp_path / f"mine-{k}.jsonl"
        simulate_to_file(setup, mine, workers=1)
        assert got.content == mine.read_bytes()
        assert f"--out {name}" in state["commands"][k]
        downloads.append(tmp_path / name)
        downloads[-1].write_bytes(got.content)
    assert "--option target=31" in state["commands"][0]
    assert "--option target" not in state["commands"][1]  # 61 is the default
    assert lab.get(f"/api/studies/{sid}/files/3").status_code == 404
    assert lab.get("/api/studies/0123456789abcdef/files/0").status_code == 404
    report = lab.get(f"/api/studies/{sid}/report")
    assert report.status_code == 200, report.text
    assert_report_equals_cli(report.json(), downloads)


def assert_report_equals_cli(report: dict[str, Any], files: list[Path],
                             paired: list[bool] | None = None) -> None:
    """Every figure of the report JSON, as the text report prints it, is the figure of
    ``dominolab report`` on the same files (each variant, each difference, points by N);
    each difference paired by deal as ``paired`` says (default: every one)."""
    done = subprocess.run([sys.executable, "-m", "dominolab", "report", *map(str, files)],
                          capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()

    def cells(label: str) -> list[str]:
        found = [line for line in lines if line.startswith(f"  {label}  ")]
        assert len(found) == 1, (label, found)
        return re.split(r"\s{2,}", found[0].strip())[1:]

    def shown(e: dict[str, Any] | None, percent: bool, signed: bool = False) -> str:
        if e is None:
            return "-"
        ci = None if e["low"] is None else (e["low"], e["high"])
        return fmt_estimate(Estimate(e["value"], ci, e["se"]), percent, signed)

    assert report["figures"]
    for fig in report["figures"]:
        want = [shown(v, fig["percent"]) for v in fig["values"]]
        want += [shown(d, fig["percent"], signed=True) for d in fig["differences"]]
        assert cells(fig["label"]) == want, fig["key"]
    assert len(report["figures"][0]["differences"]) == len(files) - 1
    want_paired = paired if paired is not None else [True] * (len(files) - 1)
    assert [c["paired"] for c in report["comparisons"]] == want_paired
    for c, on in zip(report["comparisons"], want_paired, strict=True):
        assert c["how"].startswith("paired by deal" if on else "unpaired")
        assert ("paired by deal" if on else "unpaired") in done.stdout
    for row in report["points_by_n"]:
        want = ["-" if v is None else f"{v['points']:.2f} ({v['share'] * 100:.1f}%)"
                for v in row["values"]]
        assert cells(f"N={row['n']}") == want
    for k, f in enumerate(report["files"]):
        assert f"{f['matches']} matches" in done.stdout
        assert sum(int(c) for c in report["distributions"]["match_hands"][k].values()) \
            == f["matches"]


def run_study(client: TestClient, body: dict[str, Any]) -> str:
    """Start a study (or find it) and wait until it is done: its id."""
    r = client.post("/api/studies", json=body)
    assert r.status_code in (200, 201), r.text
    sid: str = r.json()["id"]
    assert ended(client, sid)["state"] == "done"
    return sid


def download(client: TestClient, sid: str, folder: Path) -> list[Path]:
    """Every variant's file of study ``sid``, downloaded into ``folder`` by its name."""
    out = []
    for variant in study_state(client, sid)["variants"]:
        got = client.get(variant["file"])
        assert got.status_code == 200
        out.append(folder / sid / variant["file_name"])
        out[-1].parent.mkdir(exist_ok=True)
        out[-1].write_bytes(got.content)
    return out


def test_two_studies_side_by_side_pair_by_deal_when_they_share_a_seed(
        lab: TestClient, tmp_path: Path) -> None:
    common = {"game": "luzak", "players": ["greedy", "greedy"], "matches": 200}
    a = run_study(lab, {**common, "seed": 21,
                        "sweep": {"option": "even_hands", "values": [True, False]}})
    b = run_study(lab, {**common, "seed": 21, "options": {"target": 31}})
    c = run_study(lab, {**common, "seed": 22, "players": ["greedy", "random"]})
    files = {sid: download(lab, sid, tmp_path) for sid in (a, b, c)}
    # same seed: every difference paired by deal, the figures those of the CLI
    r = lab.get(f"/api/studies/compare?ids={a},{b}")
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["ids"] == [a, b]
    assert [(col["study"], col["variant"], col["label"], col["paired"])
            for col in report["columns"]] == [(a, 0, "even-hands=yes", None),
                                              (a, 1, "even-hands=no", True),
                                              (b, 0, "as set", True)]
    assert_report_equals_cli(report, files[a] + files[b], paired=[True, True])
    # another seed: the third study's difference is unpaired, as the CLI says too
    r = lab.get(f"/api/studies/compare?ids={b}, {a},{c}")
    assert r.status_code == 200, r.text
    report = r.json()
    assert [col["paired"] for col in report["columns"]] == [None, True, True, False]
    assert [col["study"] for col in report["columns"]] == [b, a, a, c]
    assert_report_equals_cli(report, files[b] + files[a] + files[c],
                             paired=[True, True, False])
    # kept: asked again, the same report
    assert lab.get(f"/api/studies/compare?ids={b},{a},{c}").json() == report


def test_a_comparison_refuses_odd_lists_naming_why(lab: TestClient) -> None:
    common = {"game": "luzak", "players": ["greedy", "greedy"], "matches": 30}
    a = run_study(lab, {**common, "seed": 31})
    b = run_study(lab, {**common, "seed": 32})
    w = run_study(lab, {**common, "game": "widelec", "seed": 31})
    unknown = "0123456789abcdef"
    refused: list[tuple[str, int, str]] = [
        ("", 400, "2 to 4"),
        ("?ids=", 400, "2 to 4"),
        (f"?ids={a}", 400, "not one"),
        (f"?ids={a},,{b}", 400, "empty id"),
        (f"?ids={a},{a}", 400, "twice"),
        (f"?ids={a},{b},{a}", 400, "twice"),
        (f"?ids={a},{b},{w},{unknown},{unknown[::-1]}", 400, "more than the 4"),
        ("?ids=" + "a," * 150, 400, "too long"),
        (f"?ids={a},{unknown}", 404, unknown),
        (f"?ids={a},{w}", 400, "different games"),
    ]
    for query, status, words in refused:
        r = lab.get(f"/api/studies/compare{query}")
        assert r.status_code == status, (query, r.text)
        assert words in r.json()["error"], (query, r.json())
    # a study still running: 409 until it ends; cancelled, it compares (started from an
    # address of its own, whose hour of matches the other tests do not spend)
    mine = {ADDRESS: "10.0.42.1"}
    big = lab.post("/api/studies", json={**common, "matches": 20_000, "seed": 33},
                   headers=mine)
    assert big.status_code == 201, big.text
    running = big.json()["id"]
    until(lambda: study_state(lab, running)["done"] >= 200, "the study plays a chunk")
    r = lab.get(f"/api/studies/compare?ids={a},{running}")
    assert r.status_code == 409 and running in r.json()["error"], r.text
    assert lab.post(f"/api/studies/{running}/cancel", headers=mine).json()["state"] == "cancelled"
    r = lab.get(f"/api/studies/compare?ids={a},{running}")
    assert r.status_code == 200, r.text
    kept = r.json()["files"][1]["matches"]
    # started again, it runs: no report, and the kept one is not answered once it ends
    assert lab.post("/api/studies", json={**common, "matches": 20_000, "seed": 33},
                    headers=mine).status_code == 200
    assert lab.get(f"/api/studies/compare?ids={a},{running}").status_code == 409
    until(lambda: study_state(lab, running)["done"] > kept, "the study plays on")
    assert lab.post(f"/api/studies/{running}/cancel", headers=mine).json()["state"] == "cancelled"
    r = lab.get(f"/api/studies/compare?ids={a},{running}")
    assert r.status_code == 200 and r.json()["files"][1]["matches"] > kept


def test_cancel_keeps_whole_matches_and_only_its_address_may(lab: TestClient) -> None:
    body = {"game": "luzak", "players": ["greedy", "random"], "matches": 20_000, "seed": 7}
    r = lab.post("/api/studies", json=body)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    until(lambda: study_state(lab, sid)["done"] >= 200, "the study plays a chunk")
    other = lab.post(f"/api/studies/{sid}/cancel", headers={ADDRESS: "10.1.2.3"})
    assert other.status_code == 403 and "address that started" in other.json()["error"]
    r = lab.post(f"/api/studies/{sid}/cancel")
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["state"] == "cancelled" and 0 < state["done"] < 20_000
    path = studies_folder(lab) / sid / "0.jsonl"
    found = recover_sim_file(path)
    assert found.matches == state["done"] and found.whole_bytes == path.stat().st_size
    assert study_state(lab, sid)["state"] == "cancelled"
    report = lab.get(f"/api/studies/{sid}/report")
    assert report.status_code == 200 and report.json()["files"][0]["matches"] == state["done"]
    # asked again, it goes on from its file; cancelled again, it stops
    r = lab.post("/api/studies", json=body)
    assert r.status_code == 200 and r.json()["id"] == sid
    r = lab.post(f"/api/studies/{sid}/cancel")
    assert r.json()["state"] == "cancelled" and r.json()["done"] >= state["done"]


def test_friend_moves_are_answered_while_a_study_runs(lab: TestClient) -> None:
    body = {"game": "luzak", "players": ["greedy", "greedy"], "matches": 20_000, "seed": 11}
    r = lab.post("/api/studies", json=body)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    until(lambda: study_state(lab, sid)["state"] == "running", "the study runs")
    # its chunks are the pool's background jobs (after any computer move or hint), one
    # running at a time: the other worker stays free
    pool = lab.app.inner.state.service.pool  # type: ignore[attr-defined]

    def in_background() -> bool:
        stats = lab.portal.call(pool.stats)  # type: ignore[union-attr]
        return bool(stats["background_running"] == stats["running"] == 1)

    until(in_background, "a chunk of the study runs in the background")
    game_id, token0, token1 = friend_game(lab)
    tokens = (token0, token1)
    slowest = 0.0
    for _ in range(12):
        states = [lab.get(f"/api/games/{game_id}", headers=auth(t)).json() for t in tokens]
        mover = next((s for s in states if s["to_move"] == s["seat"]), None)
        if mover is None or states[0]["match_result"] is not None:
            break
        started = time.monotonic()
        r = lab.post(f"/api/games/{game_id}/moves", headers=auth(tokens[mover["seat"]]),
                     json={"move": mover["legal"][0]["move"], "version": mover["version"]})
        slowest = max(slowest, time.monotonic() - started)
        assert r.status_code == 200, r.text
    assert study_state(lab, sid)["state"] == "running"
    assert slowest < 1.0, slowest
    assert lab.post(f"/api/studies/{sid}/cancel").json()["state"] == "cancelled"


@pytest.mark.parametrize("body, field", [
    ({"game": "chess"}, "game"),
    ({"game": 5}, "game"),
    ({"game": "luzak", "options": {"target": 0}}, "options.target"),
    ({"game": "luzak", "options": {"target": "61"}}, "options.target"),
    ({"game": "luzak", "options": {"even_hands": 1}}, "options.even_hands"),
    ({"game": "luzak", "options": {"edge_double": False}}, "options"),
    ({"game": "luzak", "options": [1]}, "options"),
    ({"game": "luzak", "sweep": {"option": "edge-double", "values": [True, False]}},
     "sweep.option"),
    ({"game": "luzak", "sweep": {"option": "target", "values": list(range(31, 40))}},
     "sweep.values"),
    ({"game": "luzak", "sweep": {"option": "target", "values": [31, 31]}}, "sweep.values"),
    ({"game": "luzak", "sweep": {"option": "target", "values": []}}, "sweep.values"),
    ({"game": "luzak", "sweep": {"option": "target", "values": [31, 99999]}},
     "options.target"),
    ({"game": "luzak", "sweep": "target"}, "sweep"),
    ({"game": "luzak", "players": ["greedy"]}, "players"),
    ({"game": "luzak", "players": ["greedy", "chess"]}, "players[1]"),
    ({"game": "luzak", "players": ["expert", "greedy"]}, "players[0]"),
    ({"game": "luzak", "players": ["hard:1s", "greedy"]}, "players[0]"),
    ({"game": "luzak", "players": ["pimc:1s", "greedy"]}, "players[0]"),
    ({"game": "luzak", "players": [None, "greedy"]}, "players[0]"),
    ({"game": "luzak", "matches": 0}, "matches"),
    ({"game": "luzak", "matches": 1.5}, "matches"),
    ({"game": "luzak", "matches": True}, "matches"),
    ({"game": "luzak", "matches": 20_001}, "matches"),
    ({"game": "luzak", "sweep": {"option": "target", "values": [31, 41, 51]},
      "matches": 7000}, "matches"),
    ({"game": "luzak", "seed": -1}, "seed"),
    ({"game": "luzak", "seed": "1"}, "seed"),
    ({"game": "luzak", "colour": "red"}, "colour"),
])
def test_odd_studies_are_refused_naming_the_field(lab: TestClient, body: dict[str, Any],
                                                  field: str) -> None:
    r = lab.post("/api/studies", json=body)
    assert r.status_code == 400, r.text
    assert field in r.json()["error"]


def test_odd_requests_are_4xx_never_500(lab: TestClient) -> None:
    odd: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/api/studies", {"content": b"[1, 2]",
                                  "headers": {"content-type": "application/json"}}),
        ("POST", "/api/studies", {"content": b"{", "headers": {"content-type":
                                                               "application/json"}}),
        ("POST", "/api/studies", {"content": b"game=luzak"}),
        ("POST", "/api/studies", {"content": b"{}" + b" " * 5000,
                                  "headers": {"content-type": "application/json"}}),
        ("GET", "/api/studies/nope", {}),
        ("GET", "/api/studies/nope/report", {}),
        ("GET", "/api/studies/nope/files/0", {}),
        ("GET", "/api/studies/nope/files/x", {}),
        ("POST", "/api/studies/nope/cancel", {}),
        ("DELETE", "/api/studies", {}),
    ]
    for method, path, kwargs in odd:
        r = lab.request(method, path, **kwargs)
        assert 400 <= r.status_code < 500, (method, path, r.status_code, r.text)
        assert r.json()["status"] == r.status_code
    with lab.websocket_connect("/ws/studies/nope") as ws:
        assert ws.receive_json()["status"] == 4404


def test_the_lab_is_off_unless_the_operator_opens_it(tmp_path: Path) -> None:
    modes: list[tuple[str, set[str]]] = [("off", set()), ("local", {"127.0.0.1", "::1"}),
                                         ("everyone", {"127.0.0.1", "::1", "10.0.0.9"})]
    for mode, allowed in modes:
        app = seeded_app(tmp_path / f"{mode}.sqlite3", 1, limits=Limits(lab=mode), workers=0)
        with TestClient(addressed(app)) as client:
            for address in ("127.0.0.1", "::1", "10.0.0.9"):
                meta = client.get("/api/lab", headers={ADDRESS: address}).json()
                assert meta["enabled"] is (address in allowed), (mode, address)
                r = client.post("/api/studies", json={"game": "luzak", "matches": 1},
                                headers={ADDRESS: address})
                if address in allowed:
                    assert r.status_code in (200, 201), r.text
                    continue
                assert r.status_code == 403, r.text
                assert "dominolab serve --lab everyone" in r.json()["error"]
                assert "dominolab serve --lab everyone" in meta["why"]
                assert client.get("/api/studies/x", headers={ADDRESS: address}
                                  ).status_code == 403


def test_the_lab_limits_refuse_past_them(tmp_path: Path) -> None:
    limits = Limits(lab="everyone", lab_matches_per_study=3000, lab_matches_per_hour=5000,
                    lab_studies_per_client=1, lab_studies_total=2)
    app = seeded_app(tmp_path / "games.sqlite3", 1, limits=limits, workers=0)
    with TestClient(addressed(app)) as client:
        meta = client.get("/api/lab").json()
        assert meta["limits"]["matches_per_study"] == 3000
        r = client.post("/api/studies", json={"game": "luzak", "matches": 3001})
        assert r.status_code == 400 and "3000" in r.json()["error"]
        a = client.post("/api/studies", json={"game": "luzak", "matches": 3000, "seed": 1})
        assert a.status_code == 201
        # one study at once per address
        r = client.post("/api/studies", json={"game": "luzak", "matches": 10, "seed": 2})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        b = client.post("/api/studies", json={"game": "luzak", "matches": 10, "seed": 3},
                        headers={ADDRESS: "10.0.0.2"})
        assert b.status_code == 201
        # two at once in all (if both still run)
        r = client.post("/api/studies", json={"game": "luzak", "matches": 10, "seed": 4},
                        headers={ADDRESS: "10.0.0.3"})
        assert r.status_code in (201, 429)
        client.post(f"/api/studies/{a.json()['id']}/cancel")
        ended(client, a.json()["id"])
        ended(client, b.json()["id"])
        # the hour's matches: 3000 started, 2001 more would pass 5000
        r = client.post("/api/studies", json={"game": "luzak", "matches": 2001, "seed": 5})
        assert r.status_code == 429, r.text
        assert "hour" in r.json()["error"] and 1 <= int(r.headers["retry-after"]) <= 3600
        r = client.post("/api/studies", json={"game": "luzak", "matches": 2000, "seed": 5})
        assert r.status_code == 201, r.text


#: matches a point of the killed server's study: enough that the kill lands mid-study (the
#: test asserts it did), few enough that playing them twice (resumed, then unbroken) is short
KILLED_MATCHES = 500


def test_a_killed_server_resumes_the_study_to_the_same_bytes(tmp_path: Path) -> None:
    body = {"game": "luzak", "players": ["greedy", "greedy"], "matches": KILLED_MATCHES,
            "seed": 3, "sweep": {"option": "even_hands", "values": [True, False]}}
    total = 2 * KILLED_MATCHES
    server = ServerProcess(tmp_path / "games.sqlite3")
    try:
        server.start(timeout=60)
        made = server.request("POST", "/api/studies", body)
        sid = made["id"]
        until(lambda: 0 < server.request("GET", f"/api/studies/{sid}")["done"] < total,
              "the study is under way", 60)
        server.kill()
        files = [tmp_path / "studies" / sid / f"{k}.jsonl" for k in range(2)]
        assert sum(recover_sim_file(f).matches for f in files if f.exists()) < total
        server.start(timeout=60)
        state = until(lambda: (s := server.request("GET", f"/api/studies/{sid}"))["state"]
                      in ("done", "failed") and s, "the resumed study ends", 120)
        assert state["state"] == "done" and state["done"] == total, state
        again = server.request("POST", "/api/studies", body)
        assert again["id"] == sid
    finally:
        server.stop()
    for k, even in enumerate(("yes", "no")):
        setup = make_setup("luzak", ("greedy", "greedy"), KILLED_MATCHES, 3, [f"even-hands={even}"])
        unbroken = tmp_path / f"unbroken-{k}.jsonl"
        simulate_to_file(setup, unbroken, workers=1)
        assert files[k].read_bytes() == unbroken.read_bytes()


def test_serve_flags_set_the_lab_limits() -> None:
    from dominolab.cli.main import build_parser
    from dominolab.cli.serve import limits_of

    args = build_parser().parse_args([
        "serve", "--lab", "everyone", "--lab-matches-per-study", "500",
        "--lab-matches-per-hour", "9000", "--lab-studies-per-address", "3",
        "--lab-studies", "5", "--data-dir", "/srv/dominolab"])
    limits = limits_of(args)
    assert (limits.lab, limits.lab_matches_per_study, limits.lab_matches_per_hour,
            limits.lab_studies_per_client, limits.lab_studies_total) == (
        "everyone", 500, 9000, 3, 5)
    assert args.data_dir == "/srv/dominolab"
    assert limits_of(build_parser().parse_args(["serve"])).lab == "local"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--lab", "some"])
    with pytest.raises(ValueError, match="lab"):
        Limits(lab="some")
    with pytest.raises(ValueError, match="lab_studies_total"):
        Limits(lab_studies_total=0)


def test_studies_live_beside_the_sqlite_file_or_in_the_data_dir(tmp_path: Path) -> None:
    from dominolab.web.studies.runner import data_folder

    assert data_folder(tmp_path / "games.sqlite3") == tmp_path.resolve()
    assert data_folder("postgresql://u@h/db").name == "dominolab"
    app = seeded_app(tmp_path / "games.sqlite3", 1, workers=0, data_dir=tmp_path / "data")
    with TestClient(addressed(app)) as client:
        sid = client.post("/api/studies", json={"game": "widelec", "matches": 3}).json()["id"]
        assert ended(client, sid)["state"] == "done"
        assert (tmp_path / "data" / "studies" / sid / "0.jsonl").is_file()
        assert (tmp_path / "data" / "studies" / sid / "study.json").is_file()
        report = client.get(f"/api/studies/{sid}/report").json()
        assert report["files"][0]["hand_end_shares"] is not None  # Widelec's figures too
