"""Text for people: the reason for a move's points, and the table drawn in text."""

from __future__ import annotations

from dominolab.core import Draw, Keep, Match, Pass, Play, Step


def explain_step(game: str, step: Step, *, show_drawn: bool = True) -> str:
    """A one-line reason for what a move scored, e.g. "tile 5, count 10 divisible by 5: +10"."""
    move = step.move
    seat, other = step.seat, 1 - step.seat
    if isinstance(move, Draw):
        if show_drawn and step.drew is not None:
            return f"drew {step.drew}"
        return "drew a tile"
    if isinstance(move, Pass):
        return "passed (nothing to play, boneyard empty)"
    if isinstance(move, Keep):
        return "kept the drawn tile"
    assert isinstance(move, Play)
    n = step.n
    if game == "widelec":
        if step.ends is None:
            return f"tile {n} leads, no quartet with one tile"
        ends = f"ends {step.ends[0]} {step.ends[1]}"
        if step.quartet:
            return f"tile {n}, {ends} form quartet {step.quartet}: +{step.points[seat]}"
        return f"tile {n}, {ends}: no quartet"
    count = step.count
    parts: list[str] = []
    divisible = bool(count) and count is not None and count % n == 0
    if count == 0:
        rule = "count 0 scores nothing"
    elif divisible:
        rule = f"count {count} divisible by {n}"
    else:
        rule = f"count {count} not divisible by {n}"
    if move.luzak:
        if game == "luzak":
            parts.append(f"tile {n} is a luzak: seat {other} +{move.tile.pips} (its pips)")
            if divisible:
                got = step.points[seat]
                parts.append(f"{rule}: +{got}" if got else f"{rule}, but the layer of a luzak "
                                                           f"does not score it here")
            else:
                parts.append(rule)
        else:
            parts.append(f"tile {n} is a luzak: {rule}"
                         + (f", so seat {other} scores +{count}" if divisible else ""))
        return "; ".join(parts)
    return f"tile {n}, {rule}" + (f": +{count}" if divisible else "")


def show_match(match: Match, color: bool = False) -> None:
    """Print every hand of ``match`` move by move, with the reason for each score."""
    for number, (hand, steps) in enumerate(zip(match.hands, match.steps, strict=True), 1):
        print(f"== hand {number}, seat {hand.opener} opens ==")
        for step in steps:
            print(f"  seat {step.seat}  {str(step.move):<10} "
                  f"{explain_step(match.spec.name, step)}")
        if hand.result is not None:
            r = hand.result
            print(f"  hand over ({r.end}): seat 0 {r.points[0]}, seat 1 {r.points[1]}"
                  + (f"; bonus {r.bonus}" if r.bonus else ""))
