"""A throwaway nginx in front of ``dominolab serve`` for the tests, from Debian's binary: no
system service. It runs the shipped site file (src/dominolab/web/edge/deploy/nginx.conf,
the one docs/deploy.md shows) with the tests' ports, from a private folder under /tmp
(:class:`dominolab.web.edge.nginx.NginxProcess`), and is stopped when the test ends, or,
should pytest be killed, when the pipe to its watching shell closes. Fixture ``nginx``:

    def test_x(nginx: StartNginx) -> None:
        proxy = nginx([server.port, other.port])   # started; proxy.base is its URL
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from dominolab.web.edge.nginx import NginxError, NginxProcess

#: what the fixture gives: start nginx in front of the servers on these ports
StartNginx = Callable[[Sequence[int]], NginxProcess]


@pytest.fixture
def nginx() -> Iterator[StartNginx]:
    """Starts nginx in front of the given servers' ports, each stopped at the test's end.
    Without nginx the test fails with one line saying what to install (CI installs it:
    .ci/run, and `make test`)."""
    started: list[NginxProcess] = []

    def start(upstreams: Sequence[int]) -> NginxProcess:
        proxy = NginxProcess(upstreams)
        try:
            proxy.start()
        except NginxError as exc:
            pytest.fail(str(exc), pytrace=False)
        started.append(proxy)
        return proxy

    try:
        yield start
    finally:
        for proxy in started:
            proxy.stop()
