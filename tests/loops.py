"""Waiting in a test, always with a deadline: :func:`until` polls a condition (the one way
to wait for something another process or thread does), and :func:`run_async` runs a
coroutine in a thread of its own, because the browser tests' Playwright keeps an event loop
running in the main thread once it has started (where ``asyncio.run`` then refuses)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def until(done: Callable[[], object], seconds: float = 30.0, what: str = "the condition",
          every: float = 0.05) -> float:
    """Poll ``done`` every ``every`` seconds until it is true; returns the seconds it took.
    The test fails naming ``what`` if it is not true within ``seconds``."""
    start = time.monotonic()
    while not done():
        if time.monotonic() - start > seconds:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(every)
    return time.monotonic() - start


def run_async(coro: Awaitable[T], timeout: float = 90.0) -> T:
    """Await ``coro`` on a new event loop in a new thread; it is cancelled, and the test
    fails with TimeoutError, if it takes longer than ``timeout`` seconds."""
    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coro

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, bounded()).result()
