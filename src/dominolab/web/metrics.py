"""What one server process is doing, for Prometheus (``GET /metrics``, docs/web.md, "Health
and metrics").

:class:`Metrics` holds one app's metrics in a registry of its own (never the library's
global one: a process, a test's above all, may hold many apps). Counters and histograms are
bumped where things happen (a move stored, a 429 answered, a database write ended); what is
a count of things open now (live games, sockets, the computer's queue) is read when
``/metrics`` is asked for, from the callables the app hands over (:meth:`Metrics.watch`),
so that nothing is counted twice and nothing drifts.

With several server processes each serves its own ``/metrics``: scrape each, and sum.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

#: the media type of ``/metrics``' answer (Prometheus' text format)
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
#: who may read ``/metrics`` unless ``--metrics-allow`` says otherwise: this machine only
DEFAULT_ALLOW: Final = ("127.0.0.1", "::1")
#: the kinds of open WebSocket (``dominolab_open_sockets{kind}``, beside ``http``)
SOCKET_KINDS: Final = ("seat", "spectator", "lobby")
#: a database write's seconds: from a fraction of a millisecond (SQLite in WAL mode) to
#: the 5 s a write waits for another process's lock before it fails
WRITE_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                        1.0, 2.5, 5.0, 10.0)
#: a computer's move or hint's seconds in the queue, before a worker takes it
WAIT_BUCKETS: Final = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                       10.0, 30.0, 60.0)


class Connections(Protocol):
    """The edge's count of TCP connections (web/edge/guard.py's ``Sockets``)."""

    #: connections refused (429) for being past their client's share, so far
    refused: int

    def open_connections(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Gauges:
    """Where the numbers read at scrape time come from (each a callable, so the figure is
    the one of that moment). ``sockets``: open WebSockets by kind (seat, spectator, lobby);
    ``pool``: the computer's pool's :meth:`~dominolab.web.games.compute.ComputePool.stats`."""

    live_games: Callable[[], int]
    sockets: Callable[[], dict[str, int]]
    pool: Callable[[], dict[str, int]]


class Metrics:
    """One app's metrics (the module's text says which; docs/web.md lists them)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.moves = Counter("dominolab_moves", "Moves stored (every seat's, the computer's "
                             "included)", registry=r)
        self.computer_moves = Counter("dominolab_computer_moves",
                                      "The computer's moves stored", registry=r)
        self.refused = Counter("dominolab_refused", "Requests and sockets refused with 429 "
                               "(or WebSocket close 4429), by kind of limit", ["kind"],
                               registry=r)
        self.errors = Counter("dominolab_errors", "Errors: server (an answer 500), database "
                              "(a write that failed)", ["kind"], registry=r)
        self.writes = Histogram("dominolab_database_write_seconds", "Database writes' "
                                "seconds, from the call to its answer (its wait behind this "
                                "server's other calls included)", ["op"],
                                buckets=WRITE_BUCKETS, registry=r)
        self.compute_wait = Histogram("dominolab_compute_wait_seconds", "Seconds a computer's "
                                      "move or a hint waited for a worker", ["job"],
                                      buckets=WAIT_BUCKETS, registry=r)
        # the labelled children used on every move, looked up once
        self._server_errors = self.errors.labels("server")
        self._database_errors = self.errors.labels("database")
        self._write_children: dict[str, Histogram] = {}
        self._gauges: Gauges | None = None
        self._connections: Connections | None = None
        r.register(_ScrapeTime(self))

    # -- what happens --------------------------------------------------------------------------
    def moved(self) -> None:
        """A move was stored (a seat's or the computer's)."""
        self.moves.inc()

    def computer_moved(self) -> None:
        """The computer's move was stored (counted by :meth:`moved` too)."""
        self.computer_moves.inc()

    def refusal(self, kind: str) -> None:
        """A 429 of ``kind`` (games, hints, seeks, players, compute, watchers, seat_sockets,
        lobby_sockets) was answered."""
        self.refused.labels(kind).inc()

    def server_error(self) -> None:
        """An answer 500 (an unexpected exception)."""
        self._server_errors.inc()

    def wrote(self, op: str, seconds: float, ok: bool) -> None:
        """The database write ``op`` took ``seconds``; ``ok`` False: it failed."""
        child = self._write_children.get(op)
        if child is None:
            child = self._write_children[op] = self.writes.labels(op)
        child.observe(seconds)
        if not ok:
            self._database_errors.inc()

    def waited(self, job: str, seconds: float) -> None:
        """A ``job`` (move, hint) of the computer's pool waited ``seconds`` for a worker."""
        self.compute_wait.labels(job).observe(seconds)

    # -- what is open now ----------------------------------------------------------------------
    def watch(self, gauges: Gauges) -> None:
        """Read the live figures from ``gauges`` at each scrape (set once, by the app)."""
        self._gauges = gauges

    def watch_connections(self, connections: Connections) -> None:
        """Read every TCP connection, and those the edge refused, from ``connections``
        (``dominolab serve`` sets it; without it plain HTTP connections are not shown)."""
        self._connections = connections

    def text(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)


class _ScrapeTime(Collector):
    """The figures read when ``/metrics`` is asked for."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self) -> Iterable[Metric]:
        return []  # made at each scrape: no fixed description to check names against

    def collect(self) -> Iterator[Metric]:
        gauges, edge = self.metrics._gauges, self.metrics._connections
        if gauges is not None:
            yield GaugeMetricFamily("dominolab_live_games", "Games held in this server's "
                                    "memory (in play, or looked at lately)",
                                    value=gauges.live_games())
            sockets = GaugeMetricFamily("dominolab_open_sockets", "Open connections by kind: "
                                        "seat, spectator and lobby WebSockets; http: every "
                                        "other connection (needs dominolab serve)",
                                        labels=["kind"])
            counts = gauges.sockets()
            for kind in SOCKET_KINDS:
                sockets.add_metric([kind], counts.get(kind, 0))
            if edge is not None:
                websockets = sum(counts.get(kind, 0) for kind in SOCKET_KINDS)
                sockets.add_metric(["http"], max(0, edge.open_connections() - websockets))
            yield sockets
            stats = gauges.pool()
            queue = GaugeMetricFamily("dominolab_compute_jobs", "The computer's moves and "
                                      "hints: waiting for a worker, and running",
                                      labels=["state"])
            queue.add_metric(["waiting"], stats["waiting"])
            queue.add_metric(["running"], stats["running"])
            yield queue
            yield GaugeMetricFamily("dominolab_compute_workers", "Worker processes of the "
                                    "computer's pool (0: it runs in threads)",
                                    value=stats["workers"])
            yield CounterMetricFamily("dominolab_compute_restarts", "Times the computer's "
                                      "pool was rebuilt after a worker process died",
                                      value=stats["restarts"])
        if edge is not None:
            yield CounterMetricFamily("dominolab_connections_refused", "TCP connections "
                                      "refused with 429 before being read: past their "
                                      "address's share (--sockets-per-address)",
                                      value=edge.refused)


# -- who may read /metrics -----------------------------------------------------------------------

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str | Iterable[str]) -> tuple[Network, ...]:
    """``--metrics-allow``'s addresses and networks (comma-separated, or a list of such
    texts) as networks; ValueError naming the item that is neither."""
    texts = [text] if isinstance(text, str) else list(text)
    items = [item for each in texts for item in each.split(",")]
    found = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        try:
            found.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an address or a network (like 127.0.0.1, "
                             f"10.0.0.0/8 or ::1)") from None
    if not found:
        raise ValueError("name at least one address or network")
    return tuple(found)


def allowed(client: str, allow: tuple[Network, ...]) -> bool:
    """Whether the client at address ``client`` (not an address: never) is in ``allow``
    (an IPv4 address mapped into IPv6 counts as itself)."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in net for net in allow)


__all__ = ["CONTENT_TYPE", "DEFAULT_ALLOW", "SOCKET_KINDS", "Connections", "Gauges",
           "Metrics", "allowed", "networks"]
