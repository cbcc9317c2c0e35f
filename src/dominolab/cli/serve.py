"""``dominolab serve``: run the web app under uvicorn and say which address to open."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import functools
import gc
import ipaddress
import logging
import math
import os
import random
import socket
import sys
from pathlib import Path

from dominolab.web.limits import DAY, Limits


def default_db() -> Path | str:
    """$DOMINOLAB_DB, else the user's data folder (XDG), so games outlive the checkout."""
    given = os.environ.get("DOMINOLAB_DB")
    if given:
        return given if is_database_url(given) else Path(given)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "dominolab" / "games.sqlite3"


def is_database_url(db: str) -> bool:
    """A PostgreSQL URL rather than an SQLite file (the store's own test, without importing
    the web app for the default's sake)."""
    return db.startswith(("postgresql://", "postgres://"))


def shown_db(db: Path | str) -> str:
    """The database as told to the person: a URL without its password."""
    if isinstance(db, str):
        from dominolab.web.storage.pg import redact

        return redact(db)
    return str(db)


def limits_of(args: argparse.Namespace) -> Limits:
    """The server's limits from its flags (each flag's type has checked its range)."""
    limits = Limits()
    for flag, scale in (("games_per_minute", 1.0), ("hints_per_minute", 1.0),
                        ("reviews_per_minute", 1.0), ("messages_per_minute", 1.0),
                        ("abandoned_after", DAY), ("finished_kept", DAY)):
        value = getattr(args, flag)
        if value is not None:
            limits = dataclasses.replace(limits, **{flag: value * scale})
    for flag, field in (("watchers_per_address", "watchers_per_client"),
                        ("watchers_per_game", "watchers_per_game"),
                        ("sockets_per_address", "sockets_per_client"),
                        ("seat_sockets_per_address", "seat_sockets_per_client"),
                        ("lobby_sockets_per_address", "lobby_sockets_per_client"),
                        ("head_timeout", "head_timeout"),
                        ("keep_alive_timeout", "keep_alive_timeout"),
                        ("hello_timeout", "hello_timeout"), ("lab", "lab"),
                        ("lab_matches_per_study", "lab_matches_per_study"),
                        ("lab_matches_per_hour", "lab_matches_per_hour"),
                        ("lab_studies_per_address", "lab_studies_per_client"),
                        ("lab_studies", "lab_studies_total")):
        value = getattr(args, flag)
        if value is not None:
            limits = dataclasses.replace(limits, **{field: value})
    return limits


def proxies_of(text: str) -> str | None:
    """``--forwarded-allow-ips`` in uvicorn's form (``*``, or addresses and networks joined
    by commas), or None if an item is neither."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            return None
    return ",".join(items)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from dominolab.web.edge.app import MAX_BODY, create_app
    from dominolab.web.edge.assets import AssetsError
    from dominolab.web.edge.guard import (
        ACCEPT_BATCH,
        AcceptFailures,
        Server,
        Sockets,
        protocols,
        raise_open_files,
    )
    from dominolab.web.storage.store import StoreError

    # say clearly if the port is taken, before uvicorn logs it its own way
    try:
        with socket.create_server((args.host, args.port), reuse_port=False):
            pass
    except OSError as exc:
        why = ("is already in use (is dominolab already running? try --port 8001)"
               if exc.errno == errno.EADDRINUSE else f"cannot be used: {exc.strerror}")
        print(f"dominolab serve: {args.host}:{args.port} {why}", file=sys.stderr)
        return 2
    db: Path | str = default_db() if not args.db else \
        args.db if is_database_url(args.db) else Path(args.db)
    for origin in args.allow_origin:
        if not origin.startswith(("http://", "https://")) or origin.count("/") > 3:
            print(f"dominolab serve: --allow-origin takes an origin like "
                  f"https://play.example.org, not {origin!r}", file=sys.stderr)
            return 2
    proxies = proxies_of(args.forwarded_allow_ips)
    if proxies is None:
        print(f"dominolab serve: --forwarded-allow-ips takes addresses or networks "
              f"joined by commas (like 127.0.0.1,10.0.0.0/8) or *, not "
              f"{args.forwarded_allow_ips!r}", file=sys.stderr)
        return 2
    limits = limits_of(args)
    from dominolab.web.metrics import networks

    try:
        networks(args.metrics_allow)
    except ValueError as exc:
        print(f"dominolab serve: --metrics-allow: {exc}", file=sys.stderr)
        return 2
    try:
        seeds = None
        if args.game_seeds is not None:
            seeds = functools.partial(random.Random(args.game_seeds).getrandbits, 53)
        app = create_app(db, computer_delay=args.computer_delay, seeds=seeds,
                         limits=limits,
                         workers=args.workers, allow_origins=tuple(args.allow_origin),
                         metrics_allow=(args.metrics_allow,),
                         health_timeout=args.health_timeout,
                         data_dir=None if args.data_dir is None else Path(args.data_dir))
    except (StoreError, AssetsError) as exc:
        print(f"dominolab serve: {exc}", file=sys.stderr)
        return 2
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    shown = f"[{host}]" if ":" in host else host
    print(f"dominolab is running: open http://{shown}:{args.port}/ in your browser.\n"
          f"Games are saved in {shown_db(db)}. Press Ctrl-C to stop.", flush=True)
    # Fewer, cheaper garbage collections: a full collection walks every game in memory and
    # showed as 50-100 ms stalls at the tail of move latency (`dominolab bench serve`).
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    if isinstance(db, str):
        # On PostgreSQL a write holds a lock that every other server waits for, while its
        # thread waits for the interpreter's lock between statements: hand that over
        # sooner (0.5 ms, not 5), which halved the move-to-update time of two servers in
        # `dominolab bench serve`.
        sys.setswitchinterval(0.0005)
    raise_open_files()
    # one log on standard error, ours and uvicorn's alike (docs/web.md, "Logs"); uvicorn's
    # own access lines would print each path with its query, so ours replace them
    from dominolab.web import logs

    logs.configure(args.log_format, access=args.access_log, moves=args.log_moves)
    # asyncio logs a traceback for every accept() that finds no file descriptor left
    # (thousands a second): one line in ten seconds says the same
    logging.getLogger("asyncio").addFilter(AcceptFailures(10.0))
    sockets = Sockets(limits.sockets_per_client, proxies)
    app.state.metrics.watch_connections(sockets)  # /metrics' plain HTTP connections
    http, ws = protocols(sockets, limits.head_timeout)
    # on Ctrl-C, requests still waiting (a hint in the queue) get 3 s, then are cancelled.
    # WebSocket messages go uncompressed unless --ws-deflate: deflating every state for
    # every socket was the largest single cost of a move (14% of the server's samples under
    # 200 friend games, about 0.2 ms a move), to save some 5 KB a move per seat.
    # uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told otherwise: here only from
    # the proxies named, and the guard's socket counts use the same rule.
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                            log_config=None, access_log=False,
                            ws_max_size=MAX_BODY * 4, lifespan="on",
                            timeout_graceful_shutdown=3, http=http, ws=ws,
                            ws_per_message_deflate=args.ws_deflate,
                            backlog=ACCEPT_BATCH,
                            timeout_keep_alive=math.ceil(limits.keep_alive_timeout),
                            proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)
    Server(config).run()
    return 0
