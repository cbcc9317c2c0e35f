"""Issue 40's small truths of the lab: the players' registry says which think against the
clock (the simulate note and help follow it), the report's hand ends and numbers, SIGTERM as
Ctrl-C, progress on and off a terminal, and gzip result files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dominolab.cli.main import main
from dominolab.players import KINDS, LEVELS, Budget, make_player, thinks_against_clock

# -- the players' registry ----------------------------------------------------------------------

@pytest.mark.parametrize("name", list(KINDS))
def test_the_registry_says_what_the_player_does(name: str) -> None:
    """A clocked player is one whose own default budget includes seconds; the others take no
    budget at all."""
    player = make_player(name, 1)
    default = getattr(player, "default", None)
    assert KINDS[name].clocked == (default is not None and default.seconds is not None)
    assert thinks_against_clock(name, Budget(worlds=3)) is False
    assert thinks_against_clock(name, None) is KINDS[name].clocked
    assert thinks_against_clock(name, Budget(seconds=1.0)) is KINDS[name].clocked


def test_levels_follow_their_player() -> None:
    assert thinks_against_clock("hard", None) and not thinks_against_clock("easy", None)
    assert not thinks_against_clock("medium", LEVELS["medium"][1])


def test_greedy_worst_gets_no_clock_note(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "luzak", "--matches", "1", "--players",
                 "greedy-worst,greedy", "--workers", "1",
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    assert "against the clock" not in capsys.readouterr().err


def test_players_help_lists_every_player(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in KINDS:
        assert f"{name}," in text or f"{name} " in text, name
    clocked = [name for name, kind in KINDS.items() if kind.clocked]
    assert f"against the clock: {', '.join(clocked)} " in text
    assert "greedy-worst" in text
