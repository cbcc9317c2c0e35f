"""The web app's event bus (dominolab.web.storage.events): every listener of a topic gets each
message once, in order; a failing listener is kept; unsubscribing stops delivery."""

from __future__ import annotations

import asyncio
from typing import Any

from dominolab.web.storage.events import Events
from loops import run_async


def test_each_listener_gets_every_message_in_order() -> None:
    async def main() -> None:
        events = Events()
        got: dict[str, list[int]] = {"a": [], "b": []}
        done = asyncio.Event()

        def listener(name: str) -> Any:
            async def on(topic: str, message: dict[str, Any]) -> None:
                assert topic == "lobby"
                got[name].append(message["n"])
                if name == "b" and message["n"] == 9:
                    done.set()
            return on

        events.subscribe("lobby", listener("a"))
        events.subscribe("lobby", listener("b"))
        events.subscribe("game:x", listener("a"))
        for n in range(10):
            await events.publish("lobby", {"n": n})
        async with asyncio.timeout(5):
            await done.wait()
            while len(got["a"]) < 10:
                await asyncio.sleep(0)
        assert got == {"a": list(range(10)), "b": list(range(10))}
        await events.close()

    run_async(main(), timeout=30)


def test_a_failing_listener_is_kept_and_unsubscribing_stops_delivery() -> None:
    async def main() -> None:
        events = Events()
        seen: list[int] = []
        arrived = asyncio.Event()

        async def flaky(topic: str, message: dict[str, Any]) -> None:
            seen.append(message["n"])
            arrived.set()
            if message["n"] == 0:
                raise RuntimeError("boom")

        stop = events.subscribe("t", flaky)
        for n in (0, 1):
            arrived.clear()
            await events.publish("t", {"n": n})
            async with asyncio.timeout(5):
                await arrived.wait()
        stop()
        await events.publish("t", {"n": 2})
        await asyncio.sleep(0)
        assert seen == [0, 1]
        await events.close()

    run_async(main(), timeout=30)
