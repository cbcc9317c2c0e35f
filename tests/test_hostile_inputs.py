"""Hostile JSON to every reader and every command that reads a file (issue 40, part 1).

The project reads JSON through one bounded reader (``core.read_json``). Here numbers of
thousands of digits, nesting thousands deep, NaN, Infinity, huge floats, bad UTF-8, cut
lines and values of the wrong type are fed to each reader function (each raises its typed
error, nothing else) and to each command through ``dominolab.cli.main.main`` in this
process (exit 2, one line on stderr naming the file, and the line for JSON Lines; no
traceback). Beside them: a repeated ``--option``, an extra budget part, a file of a future
rules version or with an option its game lacks, and damaged Parquet files.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dominolab.cli.main import main
from dominolab.core import JsonError, OptionError, RecordError, load_record, read_json
from dominolab.jsonfile import read_json_file
from dominolab.lab import SimFileError, iter_sim
from dominolab.lab.arena import compare_arenas, pairs_by_seed
from dominolab.lab.simfile import recover_sim_file
from dominolab.players import Budget, ratings
from dominolab.web.edge.app import parse_json

#: few examples each, every one within a deadline: the whole file runs in well under 30 s
HOSTILE = settings(max_examples=20, deadline=5000, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow,
                                          HealthCheck.function_scoped_fixture])

#: one line of JSON (no newline in it) that the one reader must refuse
hostile_lines = st.one_of(
    st.integers(min_value=4300, max_value=6000).map(
        lambda n: b'{"type": "hand", "match": ' + b"1" * n + b"}"),
    st.integers(min_value=31, max_value=4299).map(lambda n: b'{"seed": -' + b"9" * n + b"}"),
    st.integers(min_value=3000, max_value=20_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=3000, max_value=20_000).map(
        lambda n: b'{"a": ' * n + b"1" + b"}" * n),
    st.sampled_from([b'{"type": "hand", "moves": NaN}', b"[Infinity]", b"[-Infinity]",
                     b'{"x": 1e999}', b"[-1e400]", b'{"seed": ' + b"9" * 400 + b".5}"]),
    st.binary(max_size=30).map(
        lambda b: b'{"type": "' + b.replace(b"\n", b"") + b'\xff"}'),  # never UTF-8
)

#: any JSON value, for a field of the wrong type
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6,
)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``dominolab ARGV`` in this process: (exit status, stdout, stderr). Any exception
    but SystemExit escapes and fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as stop:
            code = stop.code
    return int(code or 0), out.getvalue(), err.getvalue()


def refused(result: tuple[int, str, str], command: str, path: Path | str,
            line: int | None = None) -> str:
    """Assert exit 2 with one line on stderr naming ``path`` (and ``line N``); return it."""
    code, out, err = result
    assert "Traceback" not in out + err
    assert code == 2, (code, err[-300:])
    assert err.endswith("\n") and err.count("\n") == 1, err[:500]
    assert err.startswith(f"dominolab {command}: "), err[:200]
    assert str(path) in err, err[:300]
    if line is not None:
        assert f"line {line}:" in err, err[:300]
    assert len(err) < 600, "the message copies the input"
    return err


# -- good files to spoil ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Good files: a simulation of each kind of game as JSON Lines, one as Parquet, and
    an arena record."""
    root = tmp_path_factory.mktemp("hostile")
    out: dict[str, Any] = {"root": root}
    for game in ("luzak", "widelec"):
        path = root / f"{game}.jsonl"
        assert run(["simulate", "--game", game, "--matches", "2", "--workers", "1",
                    "--out", str(path)])[0] == 0
        out[game] = path.read_bytes().splitlines()
    parquet = root / "good.parquet"
    assert run(["simulate", "--game", "luzak", "--matches", "40", "--workers", "1",
                "--format", "parquet", "--out", str(parquet)])[0] == 0
    out["parquet"] = parquet.read_bytes()
    code, text, _ = run(["arena", "greedy", "random", "--game", "luzak", "--matches", "3",
                         "--workers", "1", "--json"])
    assert code == 0
    out["arena"] = json.loads(text)
    return out


def _write_lines(path: Path, lines: list[bytes], gz: bool = False) -> Path:
    data = b"".join(line + b"\n" for line in lines)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# -- the reader functions --------------------------------------------------------------------

@HOSTILE
@given(line=hostile_lines)
def test_every_reader_refuses_hostile_json_with_its_typed_error(line: bytes) -> None:
    """read_json, load_record and the web's parse_json refuse each hostile text with their
    own error (or None), never another exception, and say it in a short message."""
    with pytest.raises(JsonError) as info:
        read_json(line, "a test")
    assert len(str(info.value)) < 300
    with pytest.raises(RecordError):
        load_record(line)
    assert parse_json(line) is None


@HOSTILE
@given(line=hostile_lines, data=st.data(), gz=st.booleans())
def test_sim_readers_name_the_file_and_the_line(files: dict[str, Any], line: bytes,
                                                 data: st.DataObject, gz: bool) -> None:
    """iter_sim (JSON Lines or .jsonl.gz) and recover_sim_file refuse a file with a
    hostile line by SimFileError naming the file and that line."""
    lines = list(files[data.draw(st.sampled_from(["luzak", "widelec"]))])
    at = data.draw(st.integers(min_value=1, max_value=len(lines)))
    lines[at - 1] = line
    path = _write_lines(files["root"] / ("reader.jsonl.gz" if gz else "reader.jsonl"), lines,
                        gz)
    readers: list[Callable[[], object]] = [lambda: list(iter_sim(path))]
    if not gz:
        readers.append(lambda: recover_sim_file(path))
    for read in readers:
        with pytest.raises(SimFileError) as info:
            read()
        assert f"{path}, line {at}: " in str(info.value)


@HOSTILE
@given(line=hostile_lines)
def test_json_files_are_named(tmp_path: Path, line: bytes) -> None:
    """read_json_file (arena records, the level records, game records): JsonError naming
    the file."""
    path = tmp_path / "record.json"
    path.write_bytes(line)
    with pytest.raises(JsonError, match=f"^{path}: not an arena record: "):
        read_json_file(path, "an arena record")


@HOSTILE
@given(value=json_values, field=st.sampled_from(["seed", "by_pair", "row", "cell"]),
       cell=st.integers(min_value=0, max_value=3))
def test_arena_record_of_wrong_types_is_refused_by_name(files: dict[str, Any], value: Any,
                                                        field: str, cell: int) -> None:
    """pairs_by_seed and compare_arenas take any JSON: the comparison, or OptionError."""
    record = json.loads(json.dumps(files["arena"]))
    if field == "row":
        record["by_pair"][0] = value
    elif field == "cell":
        record["by_pair"][0][cell] = value
    else:
        record[field] = value
    try:
        pairs_by_seed(record)
        compare_arenas(record, files["arena"], ("a.json", "b.json"))
    except OptionError as exc:
        assert len(str(exc)) < 600


# -- the commands ----------------------------------------------------------------------------

@HOSTILE
@given(line=hostile_lines, data=st.data(), gz=st.booleans())
def test_report_and_resume_refuse_a_hostile_line(files: dict[str, Any], line: bytes,
                                                 data: st.DataObject, gz: bool) -> None:
    """`report` and `simulate --resume` on a file with a hostile line: exit 2, one line
    naming the file and the line."""
    game = data.draw(st.sampled_from(["luzak", "widelec"]))
    lines = list(files[game])
    at = data.draw(st.integers(min_value=1, max_value=len(lines)))
    lines[at - 1] = line
    path = _write_lines(files["root"] / ("cmd.jsonl.gz" if gz else "cmd.jsonl"), lines, gz)
    refused(run(["report", str(path)]), "report", path, at)
    if not gz:
        refused(run(["simulate", "--game", game, "--matches", "2", "--workers", "1",
                     "--out", str(path), "--resume"]), "simulate", path, at)


@HOSTILE
@given(data=st.data())
def test_report_refuses_a_cut_line(files: dict[str, Any], data: st.DataObject) -> None:
    """A line cut short (not the end of the file: a run's torn last line is --resume's
    business) is named by its number."""
    lines = list(files[data.draw(st.sampled_from(["luzak", "widelec"]))])
    at = data.draw(st.integers(min_value=1, max_value=len(lines)))
    cut = data.draw(st.integers(min_value=1, max_value=len(lines[at - 1]) - 1))
    lines[at - 1] = lines[at - 1][:cut]
    path = _write_lines(files["root"] / "cut.jsonl", lines)
    refused(run(["report", str(path)]), "report", path, at)


@HOSTILE
@given(data=st.data(), value=json_values)
def test_report_takes_any_value_in_any_field(files: dict[str, Any], data: st.DataObject,
                                             value: Any) -> None:
    """A field of a line given any JSON value: the report, or exit 2 with one line naming
    the file and the line; never a traceback."""
    lines = list(files[data.draw(st.sampled_from(["luzak", "widelec"]))])
    at = data.draw(st.integers(min_value=1, max_value=len(lines)))
    obj = json.loads(lines[at - 1])
    obj[data.draw(st.sampled_from(sorted(obj)))] = value
    lines[at - 1] = json.dumps(obj).encode()
    path = _write_lines(files["root"] / "typed.jsonl", lines)
    code, out, err = run(["report", str(path)])
    assert "Traceback" not in out + err
    if code != 0:
        refused((code, out, err), "report", path, at)


@HOSTILE
@given(line=hostile_lines, second=st.booleans())
def test_compare_and_replay_refuse_a_hostile_file(files: dict[str, Any], line: bytes,
                                                  second: bool) -> None:
    """`compare` (either record) and `replay`: exit 2, one line naming the file."""
    good = files["root"] / "arena.json"
    good.write_text(json.dumps(files["arena"]), encoding="utf-8")
    bad = files["root"] / "hostile.json"
    bad.write_bytes(line)
    pair = [str(good), str(bad)] if second else [str(bad), str(good)]
    refused(run(["compare", *pair]), "compare", bad)
    refused(run(["replay", str(bad)]), "replay", bad)


def _level_records(folder: Path) -> None:
    """Level records the fit reads, made up (each level scores against each)."""
    for game, names in ratings.LEVEL_RECORDS.items():
        for name in names:
            specs = ratings.LEVEL_SPECS[game]
            a, b = (next(spec for spec in specs.values()  # the file names the kind
                         if spec.split(":")[0] == player.split("-")[0])
                    for player in name.removesuffix(".json").split("__")[1:3])
            record = {"game": game, "a": a, "b": b, "a_wins": 6, "draws": 1, "matches": 10}
            (folder / name).write_text(json.dumps(record), encoding="utf-8")


def _ratings(folder: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = ratings.main([str(folder)])
    return code, out.getvalue(), err.getvalue()


def test_ratings_made_up_records_fit(tmp_path: Path) -> None:
    """The made-up level records below are ones the fit reads (so the next test's refusals
    are of the hostile record, not of these)."""
    _level_records(tmp_path)
    code, out, err = _ratings(tmp_path)
    assert (code, err) == (0, ""), err
    assert out.count("easy 1500.0") == len(ratings.LEVEL_RECORDS)


@HOSTILE
@given(content=st.one_of(hostile_lines, json_values.map(lambda v: json.dumps(v).encode())),
       which=st.integers(min_value=0, max_value=2))
def test_ratings_refuse_a_hostile_record_by_name(tmp_path: Path, content: bytes,
                                                 which: int) -> None:
    """The level ratings' reader (python -m dominolab.players.ratings): exit 2 and one line
    naming the record for a hostile or wrongly typed one."""
    _level_records(tmp_path)
    name = ratings.LEVEL_RECORDS["luzak"][which]
    (tmp_path / name).write_bytes(content)
    code, _, err = _ratings(tmp_path)
    assert "Traceback" not in err
    assert code == 2 and err.count("\n") == 1 and name in err, err[:300]


# -- options, budgets, headers, Parquet ------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["score", "luzak", "65", "--option", "target=10", "--option", "target=20"],
    ["score", "widelec", "65", "-o", "edge_double=no", "-o", "edge-double=yes"],
    ["simulate", "--game", "luzak", "--matches", "1", "-o", "target=9", "-o", "target=9"],
    ["arena", "greedy", "random", "--game", "luzak", "--matches", "1", "-o", "target=5",
     "-o", "target=7"],
])
def test_a_repeated_option_is_refused_by_name(argv: list[str], tmp_path: Path) -> None:
    """A repeated --option NAME is refused naming it, not read as its last value."""
    if argv[0] == "simulate":
        argv = [*argv, "--out", str(tmp_path / "x.jsonl")]
    code, _, err = run(argv)
    assert code == 2 and "given twice" in err and err.count("\n") == 1, err
    assert ("target" if "target" in " ".join(argv) else "edge-double") in err
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(("text", "extra"), [
    ("200w,300w", "300w"), ("1s,2s", "2s"), ("200w,1s,500ms", "500ms"), ("5w, 1s ,6W", "6w")])
def test_an_extra_budget_part_is_refused_by_name(text: str, extra: str) -> None:
    """A second time or worlds part is refused naming it, not dropped."""
    with pytest.raises(OptionError, match=f"{extra} is a second"):
        Budget.parse(text)
    code, _, err = run(["arena", "greedy", "pimc", "--game", "luzak", "--matches", "1",
                        "--budget", text])
    assert code == 2 and f"{extra} is a second" in err and err.count("\n") == 1, err
    code, _, err = run(["arena", "greedy", f"pimc:{text}", "--game", "luzak", "--matches",
                        "1"])
    assert code == 2 and f"{extra} is a second" in err, err


@pytest.mark.parametrize(("change", "said"), [
    (lambda h: h.update(rules_version=2), "rules version 2; this dominolab plays version 1"),
    (lambda h: h.update(rules_version="1"), "rules version '1'"),
    (lambda h: h.pop("rules_version"), "rules version None"),
    (lambda h: h["options"].update(spinners=True), "luzak has no option spinners"),
    (lambda h: h["options"].update(target="61"), "option target of luzak takes a whole"),
    (lambda h: h["options"].update(target=10**20), "from 1 to 10000"),
])
def test_a_header_of_other_rules_or_options_is_refused(files: dict[str, Any],
                                                        change: Callable[[dict[str, Any]],
                                                                         object],
                                                        said: str) -> None:
    """`report` and `simulate --resume` refuse a file of another rules version, or with
    an option its game lacks or cannot take, in one line naming it (its figures would not
    be what its label says)."""
    header = json.loads(files["luzak"][0])
    change(header)
    path = _write_lines(files["root"] / "header.jsonl",
                        [json.dumps(header).encode(), *files["luzak"][1:]])
    assert said in refused(run(["report", str(path)]), "report", path, 1)
    refused(run(["simulate", "--game", "luzak", "--matches", "2", "--workers", "1",
                 "--out", str(path), "--resume"]), "simulate", path, 1)


def _flipped(data: bytes, start: int, end: int) -> bytes:
    spoilt = bytearray(data)
    for i in range(start, end):
        spoilt[i] ^= 0x55
    return bytes(spoilt)


@pytest.mark.parametrize("spoil", [
    lambda d: d[: len(d) // 2],
    lambda d: d[:-10],
    lambda d: d[:8],
    lambda d: b"PAR1" + b"x" * 100,
    lambda d: _flipped(d, 200, 600),
    lambda d: _flipped(d, len(d) - 400, len(d) - 20),
    lambda d: _flipped(d, len(d) // 3, len(d) // 2),
])
def test_a_damaged_parquet_file_is_named(files: dict[str, Any],
                                         spoil: Callable[[bytes], bytes]) -> None:
    """pyarrow's own messages (ArrowException or OSError) reach the user with the file's
    name, on one line."""
    path = files["root"] / "damaged.parquet"
    path.write_bytes(spoil(files["parquet"]))
    refused(run(["report", str(path)]), "report", path)
