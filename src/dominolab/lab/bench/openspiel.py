"""Random games through the OpenSpiel adapter, through the engine directly, and OpenSpiel's
own ``python_block_dominoes``, side by side in one process (the ``openspiel`` extra).

Every figure is whole random games (one hand each) per second on one core, uniform random
choice at every node. Through OpenSpiel a game is dealt tile by tile at chance nodes and
every step goes through ``pyspiel`` (``legal_actions``, ``apply_action``), as an
algorithm would drive it; the engine figure is ``Hand.apply_unchecked`` on a shuffled deal
(the path our own search players use). The ratios say what the adapter costs over the
engine, and how our games through OpenSpiel compare with OpenSpiel's Python dominoes.
OpenSpiel is imported only when measuring.
"""

from __future__ import annotations

import random
import time
from typing import Any

from dominolab.core import GAMES
from dominolab.lab.bench.engine import random_hands_fast

#: OpenSpiel's Python block dominoes, the reference
REFERENCE = "python_block_dominoes"


def have_openspiel() -> bool:
    """Whether OpenSpiel (``pyspiel``) can be imported."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def openspiel_games(game: Any, seconds: float, seed: int = 1) -> tuple[int, int, float]:
    """Random games of a pyspiel game for about ``seconds``: (games, steps, elapsed)."""
    rng = random.Random(seed)
    rand = rng.random
    games = steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rand() * len(legal))])
                steps += 1
            games += 1
        now = time.perf_counter()
        if now >= deadline:
            return games, steps, now - start


def measure(seconds: float) -> dict[str, Any]:
    """games/s for each of our games (adapter and engine) and the reference, with ratios."""
    import pyspiel
    from open_spiel.python.games import block_dominoes  # noqa: F401  (registers it)

    import dominolab.integrations.openspiel as adapter

    ref_games, ref_steps, ref_elapsed = openspiel_games(pyspiel.load_game(REFERENCE), seconds)
    reference = ref_games / ref_elapsed
    results: dict[str, Any] = {
        REFERENCE: {"games_per_s": round(reference, 1),
                    "steps_per_game": round(ref_steps / ref_games, 1)},
    }
    for name, short in adapter.SHORT_NAMES.items():
        games, steps, elapsed = openspiel_games(pyspiel.load_game(short), seconds)
        hands, _, engine_elapsed = random_hands_fast(GAMES[name], seconds)
        through = games / elapsed
        engine = hands / engine_elapsed
        results[short] = {
            "games_per_s": round(through, 1),
            "steps_per_game": round(steps / games, 1),
            "engine_games_per_s": round(engine, 1),
            "engine_over_adapter": round(engine / through, 2),
            "adapter_over_block_dominoes": round(through / reference, 3),
        }
    return results


__all__ = ["REFERENCE", "have_openspiel", "measure", "openspiel_games"]
