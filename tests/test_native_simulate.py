"""Greedy matches of ``dominolab simulate`` on the native loop (issue: "simulate greedy
players 10x faster, the same file").

Two greedy players on the native fast path play a match without a ``Match``
(:func:`dominolab.lab.play.greedy_match_facts`): each hand dealt by ``Deal.for_hand`` and
played in one native call, the match's end asked of ``end_of_match`` after each hand, the
lines built by the one builder (:func:`dominolab.lab.simfile.line_of_hand`). Here its lines
must be those of the pure-Python path byte for byte, for every game under every set of its
yes/no options, at targets that end a match in its first hand (1), cut a hand mid-way
(win at once) or take many hands; and every natively played match must replay move by
move through the checked ``Match.apply`` to the same lines.

Skipped only when the extension is not built (or turned off with DOMINOLAB_PURE=1).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import COMBO_IDS, COMBOS, GAME_NAMES
from dominolab import native
from dominolab.core import Deal, Match, MatchResult, Options, get_game
from dominolab.core.match import end_of_match, points_to_win_at_once
from dominolab.lab.play import (
    CHECK_ENV,
    check_match_facts,
    greedy_match_facts,
    play_match_facts,
)
from dominolab.lab.simfile import (
    HandFacts,
    facts_text,
    hand_line,
    line_of_match,
    match_facts,
    match_line,
    match_text,
    parse_sim,
)
from dominolab.lab.simulate import make_setup, match_lines

if not native.enabled():
    pytest.skip(f"the native fast path is not in use: {native.status()}",
                allow_module_level=True)

#: a match won in its first hand; one won mid-hand in Widelec (at once); a usual one
TARGETS = (1, 23, 61)


def both_paths(game: str, options: Options, seed: int, indices: range) -> tuple[str, str]:
    """The lines of matches ``indices`` of a greedy run, native then pure."""
    setup = make_setup(game, ("greedy", "greedy"), seed=seed, options=options)
    fast = "".join(match_lines(setup, i) for i in indices)
    with native.pure():
        slow = "".join(match_lines(setup, i) for i in indices)
    return fast, slow


@pytest.mark.parametrize(("game", "options"), COMBOS, ids=COMBO_IDS)
def test_lines_are_the_same_on_both_paths(game: str, options: Options) -> None:
    """Same seed, same lines, under every option set; the lines compared include hands cut
    by a win at once and, without even_hands, matches of an odd number of hands."""
    rows = []
    for target, seed in zip(TARGETS, (3, 50, 700), strict=True):
        opts = dataclasses.replace(options, target=target)
        fast, slow = both_paths(game, opts, seed, range(3))
        assert fast == slow, f"{game} {opts}"
        rows += [json.loads(line) for line in fast.splitlines()]
    cut = any(r["type"] == "hand" and r["end"] == "target" for r in rows)
    odd = any(r["type"] == "match" and r["hands"] % 2 == 1 for r in rows)
    assert cut == getattr(options, "win_at_once", False)
    assert odd == (not getattr(options, "even_hands", False))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_long_matches_are_the_same_on_both_paths(game: str) -> None:
    opts = get_game(game).options(["target=150"])
    fast, slow = both_paths(game, opts, 9, range(2))
    assert fast == slow


@pytest.mark.parametrize(("game", "options"), COMBOS, ids=COMBO_IDS)
def test_native_matches_replay_through_the_checked_match(game: str, options: Options) -> None:
    """Every natively played match replays through ``Match.apply`` to the same lines,
    over many seeds and targets; the ends the match flow can take all turn up."""
    spec = get_game(game)
    ends: set[str] = set()
    hand_ends: set[str] = set()
    odd = False
    for target in (1, 5, 23, 40, 61, 97):
        opts = dataclasses.replace(options, target=target)
        for seed in range(6):
            facts = greedy_match_facts(spec, opts, 1000 * target + seed)
            check_match_facts(spec, opts, facts)
            ends.add(facts.result.end)
            hand_ends.update(h.result.end for h in facts.hands)
            odd = odd or len(facts.hands) % 2 == 1
    win_at_once = getattr(options, "win_at_once", False)
    assert ends == ({"at-once"} if win_at_once else {"target"})
    if win_at_once:
        assert "target" in hand_ends  # a hand was cut mid-way
    assert odd == (not getattr(options, "even_hands", False))


def test_native_facts_are_those_of_the_checked_match() -> None:
    """The facts themselves, not only the lines: the same steps, hands and results."""
    for game in GAME_NAMES:
        spec = get_game(game)
        options = spec.options(["target=40"])
        for seed in range(4):
            facts = greedy_match_facts(spec, options, seed)
            match = Match(spec, options, seed=seed)
            for hand in facts.hands:
                for _, move, _, _ in hand.steps:
                    match.apply(move)
            reference = match_facts(match)
            assert facts.result == reference.result
            assert facts.first_opener == reference.first_opener
            assert len(facts.hands) == len(reference.hands)
            for ours, theirs in zip(facts.hands, reference.hands, strict=True):
                assert ours.opener == theirs.opener
                assert list(ours.steps) == list(theirs.steps)
                assert (ours.result.end, ours.result.winner, ours.result.points,
                        ours.result.bonus) == (theirs.result.end, theirs.result.winner,
                                               theirs.result.points, theirs.result.bonus)
                assert tuple(map(list, ours.left)) == tuple(map(list, theirs.left))


def test_check_finds_a_wrong_fact() -> None:
    spec = get_game("luzak")
    options = spec.options()
    facts = greedy_match_facts(spec, options, 5)
    check_match_facts(spec, options, facts)
    first = facts.hands[0]
    seat, move, n, points = first.steps[3]
    wrong_step = HandFacts(first.opener, first.result,
                           [*first.steps[:3], (seat, move, n, (points[0] + 1, points[1])),
                            *first.steps[4:]], first.left)
    wrong = dataclasses.replace(facts, hands=[wrong_step, *facts.hands[1:]])
    with pytest.raises(RuntimeError, match="the line of a hand differs"):
        check_match_facts(spec, options, wrong)
    swapped = HandFacts(first.opener, first.result, [first.steps[1], first.steps[0],
                                                      *first.steps[2:]], first.left)
    with pytest.raises(RuntimeError, match="hand 1, move 1"):
        check_match_facts(spec, options, dataclasses.replace(facts, hands=[swapped]))
    short = dataclasses.replace(facts, hands=list(facts.hands[:-1]))
    with pytest.raises(RuntimeError, match="not over"):
        check_match_facts(spec, options, short)


def test_check_env_replays_every_native_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """DOMINOLAB_CHECK_NATIVE=1 replays each native match; the lines do not change."""
    setup = make_setup("widelec", ("greedy", "easy"), seed=4)
    plain = [match_lines(setup, i) for i in range(3)]
    calls: list[int] = []

    def counting(spec: object, options: object, facts: object) -> None:
        calls.append(1)
        check_match_facts(spec, options, facts)  # type: ignore[arg-type]

    monkeypatch.setattr("dominolab.lab.play.check_match_facts", counting)
    monkeypatch.setenv(CHECK_ENV, "1")
    assert [match_lines(setup, i) for i in range(3)] == plain
    assert len(calls) == 3


def test_other_players_still_play_through_the_match() -> None:
    """Only greedy against greedy takes the native loop; the rest plays through Match."""
    options = get_game("luzak").options(["target=20"])
    facts = play_match_facts("luzak", options, 3, ("greedy", "random"))
    assert facts.hands and all(isinstance(h.result.points, tuple) for h in facts.hands)
    setup = make_setup("luzak", ("greedy", "random"), seed=3, options=["target=20"])
    with native.pure():
        assert match_lines(setup, 0) == facts_text(get_game("luzak"), 0, facts)


def test_the_builders_of_a_match_agree() -> None:
    """hand_line, match_line and match_text are the one builder over a Match's facts, and
    the file they make reads back."""
    spec = get_game("widelec")
    match = Match(spec, spec.options(), seed=12)
    for _, move, _, _ in (s for h in greedy_match_facts(spec, spec.options(), 12).hands
                          for s in h.steps):
        match.apply(move)
    line = match_line(spec, 7, match)
    assert line == line_of_match(spec, 7, match_facts(match))
    assert line.hands == tuple(hand_line(spec, 7, h, match)
                               for h in range(1, len(match.hands) + 1))
    text = match_text(spec, 0, match)
    header = make_setup("widelec", seed=12, matches=1).header()
    sim = parse_sim([json.dumps(header), *text.splitlines()])
    assert sim.matches[0] == match_line(spec, 0, match)


# -- the match's end, stated once ---------------------------------------------------------

def test_end_of_match() -> None:
    luzak = get_game("luzak").options(["target=30"])
    odd = get_game("luzak").options(["target=30", "even-hands=no"])
    widelec = get_game("widelec").options(["target=30"])
    played_out = get_game("widelec").options(["target=30", "win-at-once=no"])
    assert end_of_match((10, 29), 1, True, luzak) is None
    assert end_of_match((10, 31), 1, True, luzak) is None  # one more hand: an even number
    assert end_of_match((10, 31), 2, True, luzak) == MatchResult("target", 1, (10, 31), 2)
    assert end_of_match((31, 31), 2, True, luzak) == MatchResult("target", None, (31, 31), 2)
    assert end_of_match((10, 31), 1, True, odd) == MatchResult("target", 1, (10, 31), 1)
    assert end_of_match((10, 31), 1, False, luzak) is None  # Luzak plays the hand out
    assert end_of_match((35, 31), 3, False, widelec) == MatchResult("at-once", 0, (35, 31), 3)
    assert end_of_match((20, 31), 3, False, widelec) == MatchResult("at-once", 1, (20, 31), 3)
    assert end_of_match((20, 31), 3, False, played_out) is None
    assert end_of_match((40, 31), 3, True, played_out) == MatchResult("target", 0, (40, 31), 3)
    assert end_of_match((1, 2), 4, True, luzak, out_of_deals=True) == MatchResult(
        "deals", 1, (1, 2), 4)
    assert points_to_win_at_once((10, 25), widelec) == (20, 5)
    assert points_to_win_at_once((10, 25), played_out) is None
    assert points_to_win_at_once((10, 25), luzak) is None


# -- the native call's input is checked ---------------------------------------------------

def test_greedy_hand_facts_checks_its_input() -> None:
    spec = get_game("widelec")
    flags, per_hand = native.rules_of(spec, spec.options())
    deal = Deal.for_hand(1, 1, 7)
    good = (flags, per_hand, native.mask_of(deal.hands[0]), native.mask_of(deal.hands[1]),
            bytes(t.index for t in deal.rest), 0, None, native._MOVE_LIST)
    engine = native.engine()
    steps, end, *_ = engine.greedy_hand_facts(*good)
    assert steps and end in (2, 3)
    def but(at: int, *values: object) -> tuple[object, ...]:
        return (*good[:at], *values, *good[at + len(values):])

    bad_cases = [
        (but(2, 3, 3), "disjoint"),
        (but(4, bytes([99])), "tile indices"),
        (but(5, 2), "opener"),
        (but(6, (1,)), "need"),
        (but(6, [1, 2]), "need"),
        (but(7, [None] * 10), "every move code"),
    ]
    for args, message in bad_cases:
        with pytest.raises((ValueError, TypeError), match=message):
            engine.greedy_hand_facts(*args)
    with pytest.raises(TypeError):
        engine.greedy_hand_facts(*good[:7], (None,) * 20003)
