"""Result files at scale: :func:`iter_sim` reads a file a match at a time in constant memory,
from JSON Lines, gzip-compressed JSON Lines or Parquet, with the checks of
:func:`read_sim_file` (which is built on it); ``dominolab simulate --format parquet`` writes
the same content as the JSON Lines file of the same run, in row groups, and ``--resume``
refuses it.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import tracemalloc
from pathlib import Path

import pytest

from dominolab.cli.main import main
from dominolab.lab.simfile import (
    PARQUET_HEADER_KEY,
    MatchLine,
    ParquetSimWriter,
    SimFile,
    SimFileError,
    dumps,
    iter_sim,
    parse_sim,
    read_sim_file,
    sim_kind,
)
from dominolab.lab.simulate import (
    ResumeUnsupported,
    SimInterrupted,
    default_out,
    make_setup,
    run_simulation,
    simulate_to_file,
)


def run_text(game: str, players: str, matches: int, seed: int = 1) -> str:
    out = io.StringIO()
    run_simulation(make_setup(game, players, matches, seed), out, workers=1)
    return out.getvalue()


def same_content(a: SimFile, b: SimFile) -> None:
    assert a.header == b.header
    assert len(a.matches) == len(b.matches)
    for ma, mb in zip(a.matches, b.matches, strict=True):
        assert ma == mb  # the match line and every hand, field by field


def big_file(path: Path, matches: int, compress: bool = False) -> int:
    """A valid file of ``matches`` matches, made fast from a few real ones (each copy renumbered
    and given its seed); returns its size in bytes (uncompressed)."""
    sample = parse_sim(io.StringIO(run_text("luzak", "random,random", 5)))
    header = {**sample.header, "matches": matches}
    spec = sample.spec
    size = 0
    opener = gzip.open if compress else open
    with opener(path, "wt", encoding="utf-8", newline="\n") as fh:
        line = dumps(header) + "\n"
        fh.write(line)
        size += len(line)
        for i in range(matches):
            m = sample.matches[i % len(sample.matches)]
            hands = tuple(dataclasses.replace(h, match=i) for h in m.hands)
            copy = dataclasses.replace(m, match=i, seed=header["seed"] + i, hands=hands)
            text = "".join(dumps(h.to_json(spec.has_boneyard)) + "\n" for h in copy.hands)
            text += dumps(copy.to_json()) + "\n"
            fh.write(text)
            size += len(text)
    return size


# -- 1. streaming reads --------------------------------------------------------------------------

@pytest.mark.parametrize(("matches", "compress"), [
    (1000, False), (1000, True),  # every run: ~1 s each
    # the same at 4,000 matches, four times the size and the time (under tracemalloc)
    pytest.param(4000, False, marks=pytest.mark.slow),
    pytest.param(4000, True, marks=pytest.mark.slow)])
def test_iter_sim_reads_in_constant_memory(tmp_path: Path, matches: int,
                                           compress: bool) -> None:
    path = tmp_path / ("big.jsonl.gz" if compress else "big.jsonl")
    size = big_file(path, matches, compress)
    assert size > 1500 * matches  # 6 MB for 4,000
    tracemalloc.start()
    try:
        with iter_sim(path) as stream:
            assert stream.game == "luzak" and stream.requested == matches
            count = hands = 0
            for m in stream:
                assert m.match == count
                count += 1
                hands += len(m.hands)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == matches and hands > matches and not stream.interrupted
    assert stream.kind == ("jsonl.gz" if compress else "jsonl")
    # the whole file, parsed into the model, takes several times its size (over 1.5 MB); a
    # stream holds a match (and the reader's buffers): a few hundred kB, whatever the
    # file's size
    assert peak < 1_000_000 < size, (peak, size)


def test_gzip_reads_as_the_plain_file(tmp_path: Path) -> None:
    text = run_text("widelec", "greedy,random", 12)
    plain = tmp_path / "w.jsonl"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "w.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    odd_name = tmp_path / "w.data"  # told by its first bytes, not its name
    odd_name.write_bytes(packed.read_bytes())
    assert (sim_kind(plain), sim_kind(packed), sim_kind(odd_name)) == (
        "jsonl", "jsonl.gz", "jsonl.gz")
    same_content(read_sim_file(plain), read_sim_file(packed))
    same_content(read_sim_file(plain), read_sim_file(odd_name))
    assert read_sim_file(packed).path == str(packed)


def test_a_stream_checks_each_line_as_it_comes(tmp_path: Path) -> None:
    lines = run_text("luzak", "random,random", 4).splitlines(keepends=True)
    match_lines = [n for n, line in enumerate(lines, 1) if '"type":"match"' in line]
    bad = list(lines)
    bad[match_lines[1]] = "{oops\n"  # the first hand line of match 2
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(gzip.compress("".join(bad).encode("utf-8")))
    seen: list[MatchLine] = []
    where = rf"bad\.jsonl\.gz, line {match_lines[1] + 1}: not JSON"
    with pytest.raises(SimFileError, match=where), iter_sim(path) as stream:
        for m in stream:
            seen.append(m)
    assert [m.match for m in seen] == [0, 1]  # the matches before the damage were read
    with pytest.raises(SimFileError, match="not JSON"):
        read_sim_file(path)

    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:match_lines[0] + 1]), encoding="utf-8")
    with pytest.raises(SimFileError, match="cut short"):
        read_sim_file(cut)
    with pytest.raises(SimFileError, match=r"line 1: not a dominolab-sim file"):
        iter_sim(_write(tmp_path / "h.jsonl", '{"format":"other"}\n'))
    with pytest.raises(SimFileError, match="line 1: empty"):
        iter_sim(_write(tmp_path / "e.jsonl", ""))
    torn = tmp_path / "torn.jsonl.gz"
    torn.write_bytes(gzip.compress("".join(lines).encode("utf-8"))[:-40])
    with pytest.raises(SimFileError, match="ends early"):
        read_sim_file(torn)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_interrupted_is_known_at_the_end(tmp_path: Path) -> None:
    text = run_text("luzak-line", "random,random", 3)
    header, *rest = text.splitlines(keepends=True)
    obj = json.loads(header)
    obj["matches"] = 10
    path = _write(tmp_path / "i.jsonl", dumps(obj) + "\n" + "".join(rest))
    stream = iter_sim(path)
    with pytest.raises(ValueError):
        _ = stream.interrupted
    assert len(list(stream)) == 3 and stream.read == 3
    assert stream.interrupted and read_sim_file(path).interrupted


# -- 2. Parquet ---------------------------------------------------------------------------------

pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize(("game", "players"), [("luzak", "greedy,random"),
                                               ("luzak-line", "random,greedy"),
                                               ("widelec", "greedy,greedy")])
def test_parquet_holds_what_the_json_lines_file_holds(tmp_path: Path, game: str,
                                                      players: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["simulate", "--game", game, "--players", players, "--matches", "25",
            "--seed", "3", "--workers", "1"]
    assert main(base) == 0
    assert main([*base, "--format", "parquet"]) == 0
    jsonl = tmp_path / f"sim-{game}-3.jsonl"
    parquet = tmp_path / f"sim-{game}-3.parquet"
    assert sim_kind(parquet) == "parquet"
    same_content(read_sim_file(jsonl), read_sim_file(parquet))
    with iter_sim(parquet) as stream:
        assert stream.kind == "parquet"
        for a, b in zip(read_sim_file(jsonl).matches, stream, strict=True):
            assert a == b
    # the header's line, in the file's key-value metadata
    meta = pq.ParquetFile(parquet).schema_arrow.metadata
    assert meta[PARQUET_HEADER_KEY.encode()].decode() + "\n" == jsonl.read_text().splitlines(
        keepends=True)[0]


def test_parquet_is_written_in_row_groups_and_repeats_byte_for_byte(tmp_path: Path) -> None:
    text = run_text("luzak", "random,random", 30, seed=9)
    sim = parse_sim(io.StringIO(text))
    path = tmp_path / "rg.parquet"
    with ParquetSimWriter(path, row_group_hands=20) as writer:
        writer.write_header(sim.header)
        for m in sim.matches:
            writer.write_match(m)
    assert pq.ParquetFile(path).metadata.num_row_groups >= len(sim.hand_lines) // 20
    same_content(sim, read_sim_file(path))
    # written from the text a run writes, line by line: the same file
    again = tmp_path / "again.parquet"
    with ParquetSimWriter(again, row_group_hands=20) as writer:
        for line in text.splitlines(keepends=True):
            writer.write(line)
    assert again.read_bytes() == path.read_bytes()
    # a run repeats byte for byte, with any number of workers
    setup = make_setup("luzak", "random,random", 30, 9)
    simulate_to_file(setup, tmp_path / "one.parquet", workers=1, kind="parquet")
    simulate_to_file(setup, tmp_path / "two.parquet", workers=2, kind="parquet")
    assert (tmp_path / "one.parquet").read_bytes() == (tmp_path / "two.parquet").read_bytes()
    same_content(sim, read_sim_file(tmp_path / "two.parquet"))


def test_an_interrupted_parquet_run_is_a_valid_file(tmp_path: Path) -> None:
    setup = make_setup("widelec", "greedy,random", matches=12, seed=2)
    full = parse_sim(io.StringIO(run_text("widelec", "greedy,random", 12, seed=2)))
    path = tmp_path / "cut.parquet"

    def stop_after_three(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(SimInterrupted) as info:
        simulate_to_file(setup, path, workers=1, progress_callback=stop_after_three,
                         kind="parquet")
    assert info.value.outcome.written == 3
    sim = read_sim_file(path)
    assert sim.interrupted and sim.matches == full.matches[:3]


def test_resume_refuses_parquet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["simulate", "--game", "luzak", "--matches", "3", "--workers", "1",
            "--format", "parquet"]
    assert main(base) == 0
    before = (tmp_path / "sim-luzak-1.parquet").read_bytes()
    capsys.readouterr()
    assert main([*base, "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dominolab simulate: --resume continues JSON Lines files only")
    assert main(base) == 2  # an existing file is kept without --force
    assert (tmp_path / "sim-luzak-1.parquet").read_bytes() == before
    assert main([*base, "--force"]) == 0
    with pytest.raises(ResumeUnsupported):
        simulate_to_file(make_setup("luzak", matches=3), tmp_path / "sim-luzak-1.parquet",
                         mode="resume", kind="parquet")
    assert default_out("luzak", 1, kind="parquet").name == "sim-luzak-1.parquet"


def test_a_damaged_parquet_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    simulate_to_file(make_setup("luzak", "random,random", 5), path, workers=1, kind="parquet")
    data = path.read_bytes()
    torn = _write(tmp_path / "torn.parquet", "")
    torn.write_bytes(data[: len(data) // 2])  # a run killed before the footer
    with pytest.raises(SimFileError, match="not a whole Parquet file"):
        read_sim_file(torn)
    table = pq.read_table(path)
    other = tmp_path / "other.parquet"
    pq.write_table(table.replace_schema_metadata({}), other)
    with pytest.raises(SimFileError, match="metadata 'dominolab-sim': missing"):
        read_sim_file(other)
    no_points = tmp_path / "np.parquet"
    pq.write_table(table.drop_columns(["points_1"]), no_points)
    with pytest.raises(SimFileError, match="no column 'points_1'"):
        read_sim_file(no_points)
    bad_seat = tmp_path / "bs.parquet"
    opener = table.column("opener").to_pylist()
    opener[0] = 5
    import pyarrow as pa

    pq.write_table(table.set_column(table.schema.get_field_index("opener"), "opener",
                                    pa.array(opener, pa.int8())), bad_seat)
    with pytest.raises(SimFileError, match=r"bs\.parquet, row 1: 'opener' is out of range"):
        read_sim_file(bad_seat)
