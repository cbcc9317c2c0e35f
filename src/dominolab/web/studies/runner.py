"""Studies run by the server (docs/web.md, "The lab"): each variant simulated by the lab's own
code in the web app's compute pool, a chunk of matches a job, appended to its file.

A study lives in ``DATA_DIR/studies/ID/``: ``study.json`` (its canonical parameters and the
address that started it), ``K.jsonl`` for variant ``K`` (0, 1, ...: the lab's JSON Lines
file, byte for byte what ``dominolab simulate`` writes with the same arguments) and, once
cancelled, ``cancelled``. Each job plays :data:`CHUNK` matches (fewer for the search
players) with :func:`~dominolab.lab.simulate.match_lines`, as a *background* job of the
pool (:meth:`~dominolab.web.games.compute.ComputePool.run`: taken only when no computer move
or hint waits, on at most half the workers, at a lower priority), in the turn of the
address that started the study, so everyone's computer moves and hints go first; at most
:data:`AHEAD` jobs a study are asked for at once, and their lines are appended in match
order. The file holds whole matches only, so a server stopped or killed mid-study resumes
it when it starts again (:func:`~dominolab.lab.simulate.resume_point` cuts a torn tail and
names the matches to play), and the file ends byte for byte as an unbroken run's.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, cast

from dominolab.lab.report import report_json, summarise_files
from dominolab.lab.simfile import SimFileError, dumps
from dominolab.lab.simulate import (
    ResumeMismatch,
    SimSetup,
    default_out,
    match_lines,
    resume_point,
)
from dominolab.players import KINDS
from dominolab.web.errors import ApiError
from dominolab.web.games.compute import ComputePool, PoolBusy, PoolClosed, WorkerDied
from dominolab.web.limits import Limits, SharedBuckets, WindowFull, WindowLimiter
from dominolab.web.studies.compare import columns, parse_ids
from dominolab.web.studies.owner import Claim, SavedState, read_state, write_state
from dominolab.web.studies.params import StudyParams, from_canonical, parse_study

log = logging.getLogger("dominolab.web")

#: matches a job plays with players that need no search (greedy, random)
CHUNK: Final = 200
#: ... and with a search player (pimc, expert: seconds a match)
SEARCH_CHUNK: Final = 4
#: jobs of one study asked of the pool at once
AHEAD: Final = 2
#: the comparisons' reports kept (a few tens of kB each)
COMPARES_KEPT: Final = 32
#: the addresses of the machine itself, for which the lab is on by default
LOCAL: Final = frozenset({"127.0.0.1", "::1", "localhost"})

State = Literal["queued", "running", "done", "cancelled", "failed"]
STATES: Final = frozenset({"queued", "running", "done", "cancelled", "failed"})
ENDED: Final = frozenset({"done", "cancelled", "failed"})


#: the longest a cancel waits for the server that runs the study to stop it, in seconds
CANCEL_WAIT: Final = 15.0
#: a study's id, as :meth:`~dominolab.web.studies.params.StudyParams.study_id` makes it
STUDY_ID: Final = re.compile(r"[0-9a-f]{16}")


class CancelledElsewhere(Exception):
    """Another server asked for the study this one runs to stop (its ``cancelled`` file)."""


def play_chunk(setup: SimSetup, first: int, end: int) -> str:
    """The lines of matches ``first .. end-1`` of ``setup`` (a job of the compute pool)."""
    return "".join(match_lines(setup, i) for i in range(first, end))


def report_of(paths: list[str]) -> dict[str, Any]:
    """The report of the variants' files as JSON (a job of the compute pool)."""
    return report_json(summarise_files(paths))


@dataclass(eq=False)
class Study:
    """One study in this server: its parameters, who started it and how far it is."""

    id: str
    params: StudyParams
    client: str
    folder: Path
    state: State = "queued"
    #: whole matches in each variant's file
    done: list[int] = field(default_factory=list)
    error: str | None = None
    cancelling: bool = False
    task: asyncio.Task[None] | None = None
    #: set whenever the study ends (done, cancelled, failed)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    report: dict[str, Any] | None = None
    #: held while this server runs the study (:mod:`~dominolab.web.studies.owner`)
    claim: Claim | None = None

    @property
    def here(self) -> bool:
        """Whether this server runs it (else another does, or none: it has ended)."""
        return self.claim is not None and self.claim.held

    def save(self) -> None:
        """How far it is, in ``state.json`` for the other servers (this server runs it)."""
        try:
            write_state(self.folder, SavedState(self.state, tuple(self.done), self.error))
        except OSError as exc:
            log.warning("study %s: cannot write its state (%s)", self.id, exc)

    def adopt(self, saved: SavedState | None) -> None:
        """Take on the state another server wrote (none yet: queued); a changed study
        forgets its report, and an ended one says so to whoever waits."""
        was = (self.state, list(self.done))
        if saved is None:
            self.state, self.done, self.error = "queued", [0] * self.params.variants, None
        else:
            self.state = cast(State, saved.state if saved.state in STATES else "failed")
            self.done, self.error = list(saved.done), saved.error
        if (self.state, self.done) != was:
            self.report = None
        if self.state in ENDED:
            self.ended.set()

    def path(self, k: int) -> Path:
        return self.folder / f"{k}.jsonl"

    def file_name(self, k: int) -> str:
        """The name a download of variant ``k`` gets, and the command line writes."""
        setup_options = self.params.setups()[k].options
        return str(default_out(self.params.game, self.params.seed, setup_options))

    def labels(self) -> list[str]:
        """Each variant's label: ``as set`` without a sweep, else ``option=value``."""
        sweep = self.params.sweep
        if sweep is None:
            return ["as set"]
        return [f"{sweep.option.replace('_', '-')}="
                f"{('yes' if v else 'no') if isinstance(v, bool) else v}"
                for v in sweep.values]

    def unready(self) -> str | None:
        """Why the study has no report yet (it runs, failed, or was cancelled before each
        variant had a match), or None when it has one."""
        if self.state not in ("done", "cancelled"):
            return (f"study {self.id} is {self.state}; its report is ready once it is done "
                    f"(or cancelled)")
        if any(d == 0 for d in self.done):
            return f"study {self.id} was cancelled before every variant had a match"
        return None

    def paths(self) -> list[str]:
        """Every variant's file, in order."""
        return [str(self.path(k)) for k in range(self.params.variants)]

    def as_json(self) -> dict[str, Any]:
        """``GET /api/studies/ID`` (docs/web.md, "The lab")."""
        params = self.params
        names = [self.file_name(k) for k in range(params.variants)]
        commands = params.commands(names)
        variants = []
        for k, (opts, label) in enumerate(zip(params.variant_options(), self.labels(),
                                              strict=True)):
            variants.append({"label": label, "options": opts, "done": self.done[k],
                             "matches": params.matches,
                             "file": f"/api/studies/{self.id}/files/{k}",
                             "file_name": names[k]})
        return {"id": self.id, "url": f"/lab/{self.id}", "params": params.canonical(),
                "state": self.state, "done": sum(self.done), "total": params.total,
                "variants": variants, "command": "\n".join(commands),
                "commands": commands, "error": self.error}

    def progress(self) -> dict[str, Any]:
        return {"type": "progress", "done": sum(self.done), "total": self.params.total,
                "state": self.state}


class Studies:
    """Every study of this server's data folder, and the lab's limits (:class:`Limits`).

    ``folder``: ``DATA_DIR/studies``; ``pool``: the compute pool the jobs run in;
    ``shared``: the database's buckets, where every server counts the matches an
    address starts per hour (none: this process counts them); ``clock``: monotonic
    seconds, for those counted here."""

    def __init__(self, folder: Path, pool: ComputePool, limits: Limits,
                 shared: SharedBuckets | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.folder = folder
        self.pool = pool
        self.limits = limits
        self.studies: dict[str, Study] = {}
        #: the matches an address starts an hour, for every server on the database
        self.hourly = WindowLimiter("lab_matches", limits.lab_matches_per_hour, 3600.0,
                                    shared, clock=clock)
        #: the reports of comparisons (their ids in order), the least recently asked first
        self._compared: collections.OrderedDict[tuple[str, ...], dict[str, Any]] = \
            collections.OrderedDict()
        self._closed = False

    # -- who may -----------------------------------------------------------------------------
    def refusal(self, client: str) -> str | None:
        """Why ``client`` may not use the lab, or None when it may."""
        mode = self.limits.lab
        if mode == "everyone" or (mode == "local" and client in LOCAL):
            return None
        if mode == "local":
            return ("the lab is open only to the server's own machine; its operator opens it "
                    "to everyone with: dominolab serve --lab everyone")
        return ("the lab is turned off on this server; its operator turns it on with: "
                "dominolab serve --lab everyone (or --lab local for the machine itself)")

    def check(self, client: str) -> None:
        """A 403 saying how the operator turns the lab on, unless ``client`` may use it."""
        why = self.refusal(client)
        if why is not None:
            raise ApiError(403, why)

    def limits_json(self) -> dict[str, Any]:
        lim = self.limits
        return {"matches_per_study": lim.lab_matches_per_study,
                "matches_per_hour": lim.lab_matches_per_hour,
                "studies_per_address": lim.lab_studies_per_client,
                "studies_running": lim.lab_studies_total, "sweep_values": 8}

    # -- starting ----------------------------------------------------------------------------
    async def start(self, data: dict[str, Any], client: str) -> tuple[Study, bool]:
        """A study from a request's body: (the study, whether it is new). The same parameters
        answer the study that exists (a cancelled or failed one is started again from its
        files). 400 for bad input, 429 past the lab's limits."""
        self.check(client)
        params = parse_study(data, self.limits.lab_matches_per_study)
        sid = params.study_id()
        study = self.find(sid)
        if study is not None and study.state not in ("cancelled", "failed"):
            return study, False
        remaining = params.total - (sum(study.done) if study is not None else 0)
        self._take(client)
        await self._spend(client, remaining)
        folder = self.folder / sid
        folder.mkdir(parents=True, exist_ok=True)
        claim = Claim.take(folder)
        if claim is None:  # another server started it, or starts it again, just now
            study = study or Study(sid, params, client, folder, done=[0] * params.variants)
            self.studies[sid] = study
            study.adopt(read_state(folder, params.variants))
            return study, False
        created = study is None
        if study is None:
            study = Study(sid, params, client, folder, done=[0] * params.variants)
            text = json.dumps({"params": params.canonical(), "client": client}, indent=1)
            (folder / "study.json").write_text(text + "\n", encoding="utf-8")
            self.studies[sid] = study
        (folder / "cancelled").unlink(missing_ok=True)
        self._launch(study, claim)
        return study, created

    def _running(self, client: str | None = None) -> int:
        return sum(1 for s in self.studies.values() if s.state not in ENDED
                   and (client is None or s.client == client))

    def _take(self, client: str) -> None:
        """429 if ``client``, or the server, runs as many studies as it may."""
        lim = self.limits
        if self._running(client) >= lim.lab_studies_per_client:
            raise ApiError(429, f"your address already has {lim.lab_studies_per_client} "
                                f"studies running; wait for one to end or cancel it",
                           retry_after=10, kind="studies")
        if self._running() >= lim.lab_studies_total:
            raise ApiError(429, f"the server already runs {lim.lab_studies_total} studies; "
                                f"try again when one ends", retry_after=10, kind="studies")

    async def _spend(self, client: str, matches: int) -> None:
        """Count ``matches`` more started by ``client`` this hour; 429 past the cap."""
        try:
            await self.hourly.spend(client, matches)
        except WindowFull as exc:
            raise ApiError(429, f"your address has started {exc.used} matches in the last "
                                f"hour; {matches} more would pass this server's "
                                f"{self.limits.lab_matches_per_hour} an hour",
                           retry_after=max(1, exc.retry_after), kind="studies") from None

    def _launch(self, study: Study, claim: Claim) -> None:
        """Run ``study`` here, holding its ``claim`` until it ends or this server stops."""
        study.claim = claim
        study.state, study.error, study.cancelling = "queued", None, False
        study.save()
        study.report = None
        for ids in [ids for ids in self._compared if study.id in ids]:
            del self._compared[ids]  # its files grow again
        study.ended = asyncio.Event()
        study.task = asyncio.get_running_loop().create_task(self._run(study),
                                                            name=f"study {study.id}")

    # -- finding -----------------------------------------------------------------------------
    def get(self, sid: str) -> Study:
        """Study ``sid`` as it is now, wherever it runs (:meth:`find`); 404 if none."""
        study = self.find(sid)
        if study is None:
            raise ApiError(404, f"there is no study {json.dumps(sid)[:40]} on this server")
        return study

    def find(self, sid: str) -> Study | None:
        """Study ``sid``: as this server runs it, else as the data folder has it (another
        server's, or none's: then this server claims it, and a study that has not ended
        goes on here from its files); None if there is no such study."""
        study = self.studies.get(sid)
        if study is not None and study.here:
            return study
        if study is None:
            if not STUDY_ID.fullmatch(sid) or not (self.folder / sid).is_dir():
                return None
            study = self._load(self.folder / sid)
            if study is None:
                return None
            self.studies[sid] = study
        self._look(study)
        return study

    def _load(self, folder: Path) -> Study | None:
        """The study of ``folder`` from its ``study.json`` (None, logged, if it has none)."""
        try:
            saved = json.loads((folder / "study.json").read_text(encoding="utf-8"))
            params = from_canonical(saved["params"])
            client = str(saved["client"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("study folder %s is not a study's; left alone (%s)", folder, exc)
            return None
        sid = params.study_id()
        if sid != folder.name:
            log.warning("study folder %s holds study %s; left alone", folder, sid)
            return None
        return Study(sid, params, client, folder, done=[0] * params.variants)

    def _look(self, study: Study) -> None:
        """Bring ``study`` (not run here) up to date from its folder: ended, or run by
        another server, as its ``state.json`` says; run by none, this server claims it and
        marks it cancelled (its ``cancelled`` file) or runs it on."""
        saved = read_state(study.folder, study.params.variants)
        if saved is not None and saved.state in ENDED:
            study.adopt(saved)
            return
        try:
            claim = Claim.take(study.folder)
        except OSError as exc:
            log.warning("study %s: cannot claim it (%s)", study.id, exc)
            claim = None
        if claim is None or self._closed:  # another server runs it, or this one stops
            if claim is not None:
                claim.release()
            study.adopt(saved)
            return
        if (study.folder / "cancelled").exists():
            study.adopt(SavedState("cancelled", tuple(self._whole(study, k) for k in
                                                      range(study.params.variants))))
            study.claim = claim
            study.save()
            claim.release()
            return
        log.info("study %s: no server runs it; this one goes on with it", study.id)
        self._launch(study, claim)

    def file(self, sid: str, k: str) -> tuple[Path, str]:
        """Variant ``k``'s file and its download name; 404 for an unknown id or variant."""
        study = self.get(sid)
        if not (k.isascii() and k.isdigit() and int(k) < study.params.variants):
            raise ApiError(404, f"study {sid} has variants 0 to {study.params.variants - 1}, "
                                f"not {json.dumps(k)[:20]}")
        return study.path(int(k)), study.file_name(int(k))

    async def cancel(self, sid: str, client: str) -> Study:
        """Stop a study (only its own address may: 403 otherwise); its files keep the
        whole matches played. Cancelling an ended study changes nothing."""
        study = self.get(sid)
        if client != study.client:
            raise ApiError(403, "only the address that started this study may cancel it")
        if study.state in ENDED:
            return study
        (study.folder / "cancelled").write_text("", encoding="utf-8")
        if study.here:
            study.cancelling = True
            if study.task is not None:
                study.task.cancel()
                await asyncio.wait([study.task])
            return study
        # another server runs it: it stops after its job in hand
        deadline = time.monotonic() + CANCEL_WAIT
        while study.state not in ENDED and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            study = self.get(sid)
        return study

    async def report(self, sid: str, client: str) -> dict[str, Any]:
        """The report of an ended study's files (409 while it runs), worked out in the
        compute pool once and kept."""
        study = self.get(sid)
        why = study.unready()
        if why is not None:
            raise ApiError(409, why)
        if study.report is None:
            report = await self._report_of(client, study.paths())
            report["id"] = sid
            report["variants"] = study.labels()
            study.report = report
        return study.report

    async def compare(self, ids_text: str | None, client: str) -> dict[str, Any]:
        """The report of 2 to 4 ended studies of one game side by side (``ids_text``:
        ``A,B[,C,D]``; :mod:`~dominolab.web.studies.compare`): 400 for a bad list or
        studies of different games, 404 for an unknown id, 409 for one without a report
        yet. Worked out in the compute pool once and kept until one of them runs again."""
        ids = parse_ids(ids_text)
        studies = [self.get(sid) for sid in ids]
        games = {s.params.game for s in studies}
        if len(games) > 1:
            raise ApiError(400, f"ids: studies of different games ({', '.join(sorted(games))}) "
                                f"cannot be compared; compare studies of one game")
        for study in studies:
            why = study.unready()
            if why is not None:
                raise ApiError(409, why)
        kept = self._compared.get(ids)
        if kept is not None:
            self._compared.move_to_end(ids)
            return kept
        report = await self._report_of(client, [p for s in studies for p in s.paths()])
        labels = [s.labels() for s in studies]
        report["ids"] = list(ids)
        report["columns"] = columns(ids, labels, report)
        report["variants"] = [f"{sid} {label}" for sid, names in zip(ids, labels, strict=True)
                              for label in names]
        self._compared[ids] = report
        while len(self._compared) > COMPARES_KEPT:
            self._compared.popitem(last=False)
        return report

    async def _report_of(self, client: str, paths: list[str]) -> dict[str, Any]:
        """:func:`report_of` in the compute pool, in ``client``'s turn (429 when full)."""
        try:
            return await self.pool.run(client, report_of, paths)
        except PoolBusy as exc:
            raise ApiError(429, str(exc), retry_after=exc.retry_after,
                           kind="studies") from None

    # -- running -----------------------------------------------------------------------------
    async def _run(self, study: Study) -> None:
        try:
            for k, setup in enumerate(study.params.setups()):
                await self._run_variant(study, k, setup)
            study.state = "done"
        except asyncio.CancelledError:
            if study.cancelling:
                study.state = "cancelled"
            elif not self._closed:
                raise
        except CancelledElsewhere:
            study.state = "cancelled"
        except (WorkerDied, ResumeMismatch, SimFileError, OSError, PoolBusy) as exc:
            study.state, study.error = "failed", str(exc)
            log.warning("study %s failed: %s", study.id, exc)
        except PoolClosed:
            pass  # the server is stopping: the next start resumes it
        finally:
            study.save()  # stopping mid-study: "running", for the next server to go on
            if study.claim is not None:
                study.claim.release()
            if study.state in ENDED:
                study.ended.set()

    async def _run_variant(self, study: Study, k: int, setup: SimSetup) -> None:
        path = study.path(k)
        first, keep = await asyncio.to_thread(resume_point, setup, path)
        if first == 0:
            path.write_bytes((dumps(setup.header()) + "\n").encode("utf-8"))
        else:
            with open(path, "r+b") as fh:
                fh.truncate(keep)
        study.done[k] = first
        size = CHUNK if all(not KINDS[p.split(":")[0]].clocked for p in setup.players) \
            else SEARCH_CHUNK
        starts = list(range(first, setup.matches, size))
        jobs: collections.deque[asyncio.Task[str]] = collections.deque()
        loop = asyncio.get_running_loop()
        try:
            for start in starts:
                # in the background: the computer's moves and hints go first (compute.py)
                jobs.append(loop.create_task(self.pool.run(
                    study.client, play_chunk, setup, start, min(start + size, setup.matches),
                    background=True)))
                if len(jobs) < AHEAD:
                    continue
                await self._write(study, k, jobs.popleft(), size)
            while jobs:
                await self._write(study, k, jobs.popleft(), size)
        finally:
            for job in jobs:
                job.cancel()

    async def _write(self, study: Study, k: int, job: asyncio.Task[str], size: int) -> None:
        text = await job
        with open(study.path(k), "a", encoding="utf-8", newline="\n") as out:
            out.write(text)
        study.state = "running"
        study.done[k] = min(study.params.matches, study.done[k] + size)
        study.save()
        if (study.folder / "cancelled").exists():
            raise CancelledElsewhere(study.id)

    # -- the server's life -------------------------------------------------------------------
    def resume_all(self) -> int:
        """Read every study of the data folder and start again each that has not ended
        and no other server runs (from its files; :meth:`find`); returns how many were
        started. A folder that cannot be read is logged and left alone."""
        started = 0
        if not self.folder.is_dir():
            return 0
        for entry in sorted(self.folder.iterdir()):
            study = self._load(entry) if entry.is_dir() else None
            if study is None:
                continue
            self.studies[study.id] = study
            self._look(study)
            started += study.here
        return started

    @staticmethod
    def _whole(study: Study, k: int) -> int:
        try:
            return resume_point(study.params.setups()[k], study.path(k))[0]
        except (ResumeMismatch, SimFileError, OSError):
            return 0

    async def close(self) -> None:
        """Stop every study's task (before the pool closes); their files resume later."""
        self._closed = True
        tasks = [s.task for s in self.studies.values() if s.task is not None and
                 not s.task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


def data_folder(db: str | os.PathLike[str]) -> Path:
    """The server's data folder: beside an SQLite file; for PostgreSQL, the user's data
    folder (``$XDG_DATA_HOME/dominolab``, else ``~/.local/share/dominolab``), where the
    default SQLite file lives."""
    if isinstance(db, str) and db.startswith(("postgresql://", "postgres://")):
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
        return Path(base) / "dominolab"
    return Path(db).resolve().parent


__all__ = ["AHEAD", "CHUNK", "COMPARES_KEPT", "SEARCH_CHUNK", "Studies", "Study", "data_folder",
           "play_chunk", "report_of"]
