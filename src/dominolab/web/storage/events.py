"""What changed, told to whoever listens: the web app's one way to announce a change that
other parts (or other server processes) must act on.

A topic is a short text (``"game:ID"``, ``"lobby"``); a message is a small JSON object.
:meth:`Events.publish` is called *after* the change is committed to the store, so a
listener that reads the store sees it. Listeners are coroutines; each message reaches every
listener of its topic once, in the order published, and a listener that fails is logged and
kept. This in-process bus serves one server; a backend that several processes share relays
the same messages between them (PostgreSQL's LISTEN/NOTIFY), and listeners cannot tell the
difference: a message may arrive from this process or another, and must be acted on by
reading the store, never trusted as the state itself.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("dominolab.web")

#: a listener: called with the topic and the message
Listener = Callable[[str, dict[str, Any]], Awaitable[None]]


class Events:
    """An in-process publish/subscribe bus, one queue per listener (so a slow listener delays
    only itself and keeps its order)."""

    #: whether messages cross processes (then a listener must read the store: what it has
    #: in memory may be behind what another process stored)
    shared = False

    def __init__(self) -> None:
        self._listeners: dict[str, list[_Queue]] = {}
        #: this process's name among those sharing the bus (in messages that say who)
        self.instance = secrets.token_hex(6)

    async def start(self) -> None:
        """Be ready to hear other processes before the server takes requests (nothing to do
        in one process)."""

    def subscribe(self, topic: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every later message of ``topic``; returns the function that
        unsubscribes it."""
        queue = _Queue(topic, listener)
        self._listeners.setdefault(topic, []).append(queue)

        def unsubscribe() -> None:
            queues = self._listeners.get(topic, [])
            if queue in queues:
                queues.remove(queue)
                queue.stop()
            if not queues:
                self._listeners.pop(topic, None)

        return unsubscribe

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        """Tell every listener of ``topic`` (here; a shared backend also tells the other
        processes). Returns once the message is queued, not when it is handled."""
        self.deliver(topic, message)

    def deliver(self, topic: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for this process's listeners of ``topic`` (a relay from another
        process calls this)."""
        for queue in list(self._listeners.get(topic, ())):
            queue.put(message)

    async def close(self) -> None:
        for queues in list(self._listeners.values()):
            for queue in queues:
                queue.stop()
        self._listeners.clear()


class _Queue:
    """One listener's messages, handled in order by a task of its own while there are any."""

    def __init__(self, topic: str, listener: Listener) -> None:
        self.topic = topic
        self.listener = listener
        self.pending: list[dict[str, Any]] = []
        self.task: asyncio.Task[None] | None = None
        self.stopped = False

    def put(self, message: dict[str, Any]) -> None:
        if self.stopped:
            return
        self.pending.append(message)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._drain(), name=f"events {self.topic}")

    async def _drain(self) -> None:
        while self.pending and not self.stopped:
            message = self.pending.pop(0)
            try:
                await self.listener(self.topic, message)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("a listener of %s failed on %s", self.topic, message)

    def stop(self) -> None:
        self.stopped = True
        self.pending.clear()
        if self.task is not None and not self.task.done():
            self.task.cancel()


__all__ = ["Events", "Listener"]
