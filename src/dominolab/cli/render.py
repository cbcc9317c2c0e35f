"""The terminal's printing of a whole match. The text itself (reasons, the table drawn in
text, colours) lives in :mod:`dominolab.text`, which the adapters use too."""

from __future__ import annotations

from dominolab.core import Match, Play
from dominolab.text import Style, draw_table, explain_step

__all__ = ["show_match"]


# -- replays ---------------------------------------------------------------------------------

def show_match(match: Match, color: bool = False) -> None:
    """Print every hand of ``match`` move by move, with the reason for each score and the
    table after each tile laid."""
    st = Style(color)
    game = match.spec
    for number, (hand, steps) in enumerate(zip(match.hands, match.steps, strict=True), 1):
        print(st(f"== hand {number}, seat {hand.opener} opens ==", "bold"))
        placements: list[Play] = []
        for step in steps:
            print(f"  seat {step.seat}  {step.move!s:<10} {explain_step(game, step)}")
            if isinstance(step.move, Play):
                placements.append(step.move)
                for line in draw_table(game, match.options, placements, color=color):
                    print("    " + line)
        if hand.result is not None:
            r = hand.result
            print(f"  hand over ({r.end}): seat 0 {r.points[0]}, seat 1 {r.points[1]}"
                  + (f"; bonus {r.bonus}" if r.bonus else ""))
