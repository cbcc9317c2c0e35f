"""Why a move scored (dominolab.core.reason_of), on the worked examples of RULES.md §6: the
same reason is worded by the terminal (dominolab.text.explain_step) and the web page."""

from __future__ import annotations

from conftest import T
from dominolab.core import Reason, reason_of, score_moves


def reasons(game: str, moves: str) -> list[Reason]:
    return [reason_of(game, step) for step in score_moves(game, moves)]


def test_s2_l1_reasons_count_and_luzak_pips() -> None:
    """RULES.md §2 and §6 L1: counts 11, 10, 8, 6, 10 after tiles 1-5; tile 4 is a luzak
    whose pips (2) go to the opponent; tile 3's count 8 is not divisible by 3."""
    got = reasons("luzak", "65 54@1e 64@1w 11@2e* 44@3e")
    assert [(r.kind, r.n, r.count, r.scored) for r in got] == [
        ("count", 1, 11, True), ("count", 2, 10, True), ("count", 3, 8, False),
        ("luzak", 4, 6, False), ("count", 5, 10, True)]
    assert got[3].to == 0 and got[3].pips == 2 and got[3].points == (2, 0)
    assert got[4].points == (10, 0)


def test_s3_v1_a_line_luzak_has_no_pips_and_gives_the_count_away() -> None:
    """RULES.md §3 and §6 V1: the luzak [5|1] makes count 8 at N=4: the opponent (seat 0)
    scores it; no pip bonus in this variant."""
    luzak = reasons("luzak-line", "64 44@R 62@L 51@R* 13@R")[3]
    assert (luzak.kind, luzak.n, luzak.count, luzak.scored) == ("luzak", 4, 8, True)
    assert luzak.pips == 0 and luzak.to == 0 and luzak.points == (8, 0)


def test_s4_w2_reasons_name_the_ends_and_the_quartet() -> None:
    """RULES.md §4 and §6 W2: the lead has no ends to compare; [2|1]+[1|0] is no quartet;
    [2|1]+[0|6] is 6012, worth 9."""
    lead, none, quartet = reasons("widelec", "21 10@R 06@R")
    assert (lead.kind, lead.ends) == ("none", None)
    assert (none.kind, none.ends, none.quartet) == ("none", (T("21"), T("10")), None)
    assert (quartet.kind, quartet.quartet, quartet.points) == ("quartet", "6012", (9, 0))
