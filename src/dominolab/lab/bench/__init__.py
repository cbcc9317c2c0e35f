"""Benchmarks: what ``dominolab bench`` measures (the command only
prints).

- :mod:`~dominolab.lab.bench.engine`: random full hands per second, on one core;
- :mod:`~dominolab.lab.bench.players`: the expert's decisions and iterations per second;
- :mod:`~dominolab.lab.bench.openspiel`: games through the OpenSpiel adapter beside the
  engine and OpenSpiel's own dominoes (needs the ``openspiel`` extra);
- :mod:`~dominolab.lab.bench.serve`: many games at once against a real server over
  WebSocket.

Each module is imported on its own; this package imports none of them.
"""
