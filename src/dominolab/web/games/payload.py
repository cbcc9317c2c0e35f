"""What the web app sends: one seat's state as JSON (docs/web.md, "STATE"), a spectator's
(the same state with no seat: "Spectators"), and the frames of a finished match's replay.

Everything a seat receives during a match is built here from that seat's
:class:`~dominolab.core.View` and the public parts of the steps (a draw names its tile only
to the drawing seat), so no payload can carry the opponent's tiles, the unused tiles or the
boneyard's. A spectator's state is built by the same function from the public parts of a
view alone, and sees every step as the mover's opponent does (``tests/test_web_leaks.py``
inspects every payload of full games, a spectator's too).
"""

from __future__ import annotations

from typing import Any

from dominolab.core import (
    Draw,
    GameSpec,
    HandResult,
    Match,
    MatchResult,
    Move,
    Pass,
    Play,
    Step,
    View,
    reason_of,
)
from dominolab.web.games.layout import TableLayout, layout_table

WIDTHS = ("wide", "narrow")


def reason_json(game: str | GameSpec, step: Step) -> dict[str, Any]:
    """Why a step scored (:func:`dominolab.core.reason_of`), as the page reads it
    (docs/web.md, REASON)."""
    r = reason_of(game, step)
    if r.kind in ("draw", "pass", "keep"):
        return {"kind": r.kind}
    ends = None if r.ends is None else [t.digits for t in r.ends]
    if r.kind == "quartet":
        return {"kind": "quartet", "quartet": r.quartet, "n": r.n, "ends": ends,
                "points": r.points[step.seat]}
    if r.kind == "none":
        return {"kind": "none", "n": r.n, "ends": ends}
    out = {"kind": r.kind, "n": r.n, "count": r.count, "scored": r.scored,
           "points": list(r.points)}
    if r.kind == "luzak":
        out.update(to=r.to, pips=r.pips)
    return out


def step_json(game: str | GameSpec, step: Step, seat: int | None) -> dict[str, Any]:
    """A step as ``seat`` may see it (``seat=None``: everything, for a finished match)."""
    drew = step.drew if seat is None or step.seat == seat else None
    return {"seat": step.seat, "move": str(step.move), "n": step.n,
            "points": list(step.points), "count": step.count,
            "reason": reason_json(game, step),
            "drew": None if drew is None else drew.digits}


def seen_step_json(game: str | GameSpec, step: Step, seat: int | None) -> dict[str, Any]:
    """A step of a match under way as ``seat`` sees it; ``seat=None``: as a spectator sees it,
    which is as the mover's opponent does (a draw shows no tile)."""
    return step_json(game, step, 1 - step.seat if seat is None else seat)


def result_json(number: int, result: HandResult) -> dict[str, Any]:
    return {"number": number, "end": result.end, "winner": result.winner,
            "points": list(result.points), "bonus": result.bonus,
            "bonus_quartets": [[a.digits, b.digits] for a, b in result.bonus_quartets],
            "pips_left": None if result.pips_left is None else list(result.pips_left)}


def match_result_json(result: MatchResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"end": result.end, "winner": result.winner, "totals": list(result.totals),
            "hands": result.hands}


def legal_json(view: View, layout: TableLayout) -> list[dict[str, Any]]:
    """This seat's legal moves, each with where its tile would lie."""
    out: list[dict[str, Any]] = []
    for move in view.legal_moves:
        out.append(move_json(move, layout))
    return out


def rules_json(spec: GameSpec) -> dict[str, Any]:
    """The facts of the game's rules the page asks instead of its name (docs/web.md,
    STATE ``rules``; :class:`~dominolab.core.GameSpec`)."""
    return {"table": spec.table, "boneyard": spec.has_boneyard, "luzaks": spec.luzaks,
            "luzak_pips": spec.luzak_pips, "scoring": spec.scoring, "count": spec.has_count,
            "hand_end": spec.hand_end, "out_bonus": spec.out_bonus}


def ports_json(view: View) -> list[dict[str, Any]]:
    """The table's free ports and the values each shows (:attr:`View.free_ports`)."""
    return [{"port": str(port), "values": list(values)} for port, values in view.free_ports]


def move_json(move: Move, layout: TableLayout) -> dict[str, Any]:
    if isinstance(move, Play):
        kind = "lead" if move.port is None else "luzak" if move.luzak else "play"
        return {"move": str(move), "kind": kind, "tile": move.tile.digits,
                "port": None if move.port is None else str(move.port), "outer": move.outer,
                "spot": layout.preview(move).to_json()}
    kind = "draw" if isinstance(move, Draw) else "pass" if isinstance(move, Pass) else "keep"
    return {"move": str(move), "kind": kind, "tile": None, "port": None, "outer": None,
            "spot": None}


def previous_hand_json(match: Match, seat: int | None, width: str,
                       layout: TableLayout | None = None) -> dict[str, Any] | None:
    """The hand before the current one, for the end-of-hand screen (None in hand 1), as
    ``seat`` sees it (None: a spectator)."""
    number = match.hand_number
    if number < 2:
        return None
    last = match.hands[number - 2]
    assert last.result is not None
    game = match.spec
    if layout is None:
        layout = layout_table(game, match.options, last.table_placements, width)
    return {"number": number - 1, "table": layout.to_json(),
            "history": [seen_step_json(game, s, seat) for s in match.steps[number - 2]],
            "result": result_json(number - 1, last.result)}


def seat_state(match: Match, seat: int | None, *, game_id: str, mode: str,
               opponent: str | None, version: int, connected: tuple[bool, bool],
               width: str = "wide", layout: TableLayout | None = None,
               history: list[dict[str, Any]] | None = None, with_previous: bool = True,
               rematch: dict[str, Any] | None = None, watching: int = 0) -> dict[str, Any]:
    """Everything ``seat`` may see of ``match`` now, as JSON (docs/web.md, STATE); with
    ``seat=None``, everything a spectator may see: the same state but for ``hand``,
    ``legal``, ``pending`` and ``opponent_tiles`` (none), and a history whose draws name no
    tile (docs/web.md, "Spectators").

    ``layout`` (this hand's table laid out in ``width``) and ``history`` (this hand's
    steps as :func:`seen_step_json` gives them to ``seat``) may come from the caller's
    caches. ``with_previous=False`` leaves out ``previous_hand`` (the caller adds it, see
    :func:`previous_hand_json`); it is always the last key. ``rematch``: the finished
    match's rematch, ``{"id", "by"}``, once a seat has asked for one. ``watching``: how
    many spectators are connected.
    """
    # a spectator is given only what every view holds in public (seat 0's, read for it)
    view = match.view(0 if seat is None else seat)
    game = match.spec
    if layout is None:
        layout = layout_table(game, match.options, view.table, width)
    if history is None:
        history = [seen_step_json(game, s, seat) for s in match.steps[-1]]
    results = [result_json(i, h.result) for i, h in enumerate(match.hands, start=1)
               if h.result is not None]
    counts = (len(view.hand), view.opponent_tiles)
    public = seat is None
    state: dict[str, Any] = {
        "id": game_id,
        "game": game.name,
        "title": game.title,
        "rules": rules_json(game),
        "options": match.options.to_dict(),
        "mode": mode,
        "opponent": opponent,
        "seat": seat,
        "version": version,
        "hand_number": match.hand_number,
        "opener": view.opener,
        "to_move": view.to_move,
        "hand": None if public else [t.digits for t in view.hand],
        "opponent_tiles": None if public else view.opponent_tiles,
        "tiles": list(counts if view.seat == 0 else counts[::-1]),
        "boneyard": view.boneyard,
        "count": view.count,
        "n": view.n,
        "hand_points": list(view.hand_points),
        "totals": list(view.totals),
        "target": match.options.target,
        "table": layout.to_json(),
        "legal": [] if public else legal_json(view, layout),
        "ports": ports_json(view),
        "pending": None if public or view.pending is None else view.pending.digits,
        "pending_seat": view.pending_seat,
        "history": history,
        "results": results,
        "match_result": match_result_json(match.result),
        "connected": list(connected),
        "watching": watching,
        "rematch": rematch,
    }
    if with_previous:
        state["previous_hand"] = previous_hand_json(match, seat, width)
    return state


def replay_frames(match: Match, width: str = "wide") -> list[dict[str, Any]]:
    """Every position of a finished match with everything shown: one frame at each hand's
    start and one after every move. ``match`` must have been played through the checked
    :meth:`Match.apply` (its steps are replayed)."""
    spec = match.spec
    frames: list[dict[str, Any]] = []
    banked = [0, 0]
    for number, steps in enumerate(match.steps, start=1):
        final = match.hands[number - 1]
        hand = match.spec.hand_class(match.deal_for(number), match.opener_of(number),
                                     match.options)
        layout = TableLayout(spec, match.options, width)
        for i in range(len(steps) + 1):
            step = steps[i - 1] if i else None
            if step is not None:
                if isinstance(step.move, Play):
                    layout.place(step.move)
                hand.apply(step.move)
            last = i == len(steps)
            points = final.points if last else hand.points
            frames.append({
                "hand": number,
                "n": len(hand.table_placements),
                "table": layout.to_json(),
                "hands": [[t.digits for t in hand.hands[s]] for s in (0, 1)],
                "boneyard": (len(hand.boneyard)  # type: ignore[attr-defined]
                             if spec.has_boneyard else None),
                "count": (type(hand.table).recount(hand.table_placements) if spec.has_count
                          else None),
                "hand_points": list(points),
                "totals": [banked[0] + points[0], banked[1] + points[1]],
                "step": None if step is None else step_json(spec, step, None),
                "result": (result_json(number, final.result)
                           if last and final.result is not None else None),
            })
        banked[0] += final.points[0]
        banked[1] += final.points[1]
    return frames
