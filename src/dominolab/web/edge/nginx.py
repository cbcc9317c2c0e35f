"""nginx in front of ``dominolab serve``: the shipped site file, and a throwaway nginx
running it (for the tests and ``dominolab bench serve --proxy nginx``).

The site file, ``deploy/nginx.conf`` beside this module, is the one docs/deploy.md tells an
operator to install: an upstream of two servers on ports 8000 and 8001, a ``server`` block
on port 80. :func:`site_config` gives the same file with other ports, changing nothing
else, so what is tested is what is documented. :class:`NginxProcess` runs it under a main
configuration of its own in a private folder (``nginx -p DIR -c DIR/nginx.conf -e
DIR/error.log -g 'daemon off;'``): no system service, no pid file or log in system places.
A small shell watches it: when the pipe to it closes (the process that started it ends,
however), it stops nginx, so none outlives its user.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import selectors
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Final

from dominolab.processes import wait_or_kill
from dominolab.web.edge.process import free_port

#: where Debian's nginx package puts the binary
NGINX: Final = Path("/usr/sbin/nginx")
#: what to install when it is missing
INSTALL: Final = "apt-get install nginx (Debian's nginx; no service of it is needed)"
#: connections one worker may hold: each proxied WebSocket is two (client and upstream)
WORKER_CONNECTIONS: Final = 8192

# the main configuration around the site file: everything in the private folder
_MAIN = """\
worker_processes 1;
worker_rlimit_nofile {files};
{user}
events {{
    worker_connections {connections};
}}
http {{
    access_log off;
    client_body_temp_path {dir}/temp/body;
    proxy_temp_path {dir}/temp/proxy;
    fastcgi_temp_path {dir}/temp/fastcgi;
    uwsgi_temp_path {dir}/temp/uwsgi;
    scgi_temp_path {dir}/temp/scgi;
    include {dir}/site.conf;
}}
"""

# runs nginx (named in $NGINX_BIN: nginx reads $NGINX as sockets to inherit), says so,
# then stops it (a fast stop, SIGTERM) as soon as its standard input closes, whoever
# closed it
_WATCH = """
"$NGINX_BIN" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/error.log" \
    -g 'daemon off;' &
pid=$!
echo started
read _ignored
kill -TERM "$pid" 2>/dev/null
wait "$pid"
"""


class NginxError(RuntimeError):
    """nginx is missing, refused the configuration, or did not start; the message says
    which, in one line."""


def site_file() -> Path:
    """The shipped site file (``deploy/nginx.conf`` in this package)."""
    return Path(str(resources.files("dominolab.web.edge") / "deploy" / "nginx.conf"))


def find_nginx() -> Path | None:
    """Debian's /usr/sbin/nginx, else an ``nginx`` on the PATH, else None."""
    if NGINX.is_file() and os.access(NGINX, os.X_OK):
        return NGINX
    found = shutil.which("nginx")
    return Path(found) if found else None


def site_config(text: str, listen: int, upstreams: Sequence[int]) -> str:
    """The site file ``text`` listening on 127.0.0.1:``listen`` (only), its upstream the
    servers on 127.0.0.1 at ``upstreams``, each line kept with its parameters; nothing else
    changed. ValueError if ``text`` lacks the lines this replaces (one ``listen 80;``, one
    ``listen [::]:80;``, the ``server 127.0.0.1:PORT ...;`` lines of the upstream) or
    ``upstreams`` is empty."""
    if not upstreams:
        raise ValueError("site_config needs at least one upstream port")
    servers = list(re.finditer(r"^(\s*)server 127\.0\.0\.1:\d+( [^;\n]*)?;\n", text, re.M))
    for pattern in (r"^\s*listen 80;\n", r"^\s*listen \[::\]:80;\n"):
        if len(re.findall(pattern, text, re.M)) != 1:
            raise ValueError(f"the site file has no single line matching {pattern!r}")
    if not servers or servers[-1].end() - servers[0].start() != sum(
            len(m.group(0)) for m in servers):
        raise ValueError("the site file's upstream has no block of "
                         "'server 127.0.0.1:PORT ...;' lines")
    indent, params = servers[0].group(1), servers[0].group(2) or ""
    block = "".join(f"{indent}server 127.0.0.1:{port}{params};\n" for port in upstreams)
    text = text[:servers[0].start()] + block + text[servers[-1].end():]
    text = re.sub(r"^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{listen};", text, flags=re.M)
    return re.sub(r"^\s*listen \[::\]:80;\n", "", text, flags=re.M)


class NginxProcess:
    """nginx on 127.0.0.1 (``port``, else a free one) running the shipped site file in
    front of the servers on 127.0.0.1 at ``upstreams``, from a private folder removed when
    it stops."""

    def __init__(self, upstreams: Sequence[int], port: int | None = None,
                 site: Path | None = None) -> None:
        self.upstreams = tuple(upstreams)
        self.port = port if port is not None else free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.site = site if site is not None else site_file()
        self.dir: Path | None = None
        self._watch: subprocess.Popen[str] | None = None

    def _write(self) -> Path:
        """The private folder, with the configuration in it (``self.dir`` from the moment
        it exists, so that :meth:`stop` removes it whatever fails after)."""
        self.dir = folder = Path(tempfile.mkdtemp(prefix="dominolab-nginx-"))
        (folder / "temp").mkdir()
        user = ""
        if os.geteuid() == 0:
            # the workers run as nobody: they must reach the folder and write their temp
            # files (the master, root, writes the log)
            folder.chmod(0o755)
            nobody = pwd.getpwnam("nobody")
            os.chown(folder / "temp", nobody.pw_uid, nobody.pw_gid)
            user = f"user nobody {grp.getgrgid(nobody.pw_gid).gr_name};"
        (folder / "site.conf").write_text(site_config(self.site.read_text(), self.port,
                                                      self.upstreams))
        (folder / "nginx.conf").write_text(_MAIN.format(
            dir=folder, user=user, connections=WORKER_CONNECTIONS,
            files=2 * WORKER_CONNECTIONS + 64))
        return folder

    def error_log(self) -> str:
        """The end of nginx's error log (empty once stopped)."""
        log = self.dir / "error.log" if self.dir is not None else None
        return log.read_text(errors="replace")[-2000:] if log and log.exists() else ""

    def start(self, timeout: float = 30) -> str:
        """Check the configuration, start nginx and wait until it accepts connections;
        returns the base URL. :class:`NginxError` if nginx is missing, refuses the
        configuration or does not start in time."""
        nginx = find_nginx()
        if nginx is None:
            raise NginxError(f"no nginx at {NGINX} or on the PATH: {INSTALL}")
        try:
            folder = self._write()
            check = subprocess.run(
                [str(nginx), "-p", str(folder), "-c", str(folder / "nginx.conf"),
                 "-e", str(folder / "error.log"), "-t", "-q"],
                capture_output=True, text=True, timeout=timeout)
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            self.stop()  # its folder, made before the site file was read, goes too
            raise NginxError(f"nginx's configuration cannot be made from {self.site}: "
                             f"{exc}") from None
        if check.returncode != 0:
            self.stop()
            raise NginxError(f"nginx refused the configuration: "
                             f"{' '.join(check.stderr.split())[-400:]}")
        env = {k: v for k, v in os.environ.items() if k != "NGINX"}
        env.update(NGINX_BIN=str(nginx), NGINX_DIR=str(folder))
        self._watch = subprocess.Popen(["sh", "-c", _WATCH], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       text=True, env=env, start_new_session=True)
        assert self._watch.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._watch.stdout, selectors.EVENT_READ)
            said = self._watch.stdout.readline().strip() if sel.select(timeout) else ""
        deadline = time.monotonic() + timeout
        while said == "started":
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self.base
            except OSError:
                if self._watch.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        log = " ".join(self.error_log().split())[-400:]
        self.stop()
        raise NginxError(f"nginx did not start on 127.0.0.1:{self.port}: {log or said}")

    def stop(self, timeout: float = 10) -> None:
        """Stop nginx (its watching shell sends SIGTERM; after ``timeout`` s, SIGKILL to
        its process group) and remove its folder. Idempotent."""
        watch, self._watch = self._watch, None
        if watch is not None:
            assert watch.stdin is not None
            watch.stdin.close()
            wait_or_kill(watch, timeout, group=True)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> NginxProcess:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
