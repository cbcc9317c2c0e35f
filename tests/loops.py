"""Running a coroutine from a test: the one way, in a thread of its own, because the browser
tests' Playwright keeps an event loop running in the main thread once it has started (where
``asyncio.run`` then refuses), and always with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T], timeout: float = 90.0) -> T:
    """``asyncio.run(coro)`` in a new thread, failing if it takes longer than ``timeout``."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout=timeout)
