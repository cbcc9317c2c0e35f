"""Running a coroutine from a test: the one way, in a thread of its own, because the browser
tests' Playwright keeps an event loop running in the main thread once it has started (where
``asyncio.run`` then refuses), and always with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run_async(coro: Awaitable[T], timeout: float = 90.0) -> T:
    """Await ``coro`` on a new event loop in a new thread; it is cancelled, and the test
    fails with TimeoutError, if it takes longer than ``timeout`` seconds."""
    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coro

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, bounded()).result()
