"""Players in the web API's tests: the one way to make one (docs/web.md, "Players")."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient


def register(client: TestClient, name: str) -> dict[str, Any]:
    """A new player called ``name``: ``{"id", "name", "key"}`` (201, or the test fails)."""
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data
