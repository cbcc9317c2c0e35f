"""The Gymnasium ids of the single-agent environment, one per game: ``dominolab/Luzak-v0``,
``dominolab/LuzakLine-v0``, ``dominolab/Widelec-v0``.

:func:`register_envs` registers them (idempotent; it imports no more than Gymnasium: the
environment class is named by its entry point and imported by ``gymnasium.make``). Importing
:mod:`dominolab.integrations` calls it when Gymnasium is installed, and the package declares
it as its ``gymnasium.envs`` entry point, the plugin hook that Gymnasium 0.26-0.29 calls on
import. Gymnasium 1.x dropped that hook; there ``gymnasium.make`` finds the ids once
``dominolab.integrations`` is imported, or by naming the module in the id::

    gymnasium.make("dominolab.integrations:dominolab/LuzakLine-v0", opponent="greedy")

Keyword arguments of ``gymnasium.make`` go to :class:`~dominolab.integrations.single_agent.
SingleAgentEnv` (``opponent``, ``seat``, ``episode``, ``render_mode``, rule options).
"""

from __future__ import annotations

from typing import Final

#: each game's environment id (the version is bumped whenever the environment's behaviour
#: changes, so results stay comparable)
ENV_IDS: Final = {
    "luzak": "dominolab/Luzak-v0",
    "luzak-line": "dominolab/LuzakLine-v0",
    "widelec": "dominolab/Widelec-v0",
}
ENTRY_POINT: Final = "dominolab.integrations.single_agent:SingleAgentEnv"


def register_envs() -> None:
    """Register :data:`ENV_IDS` with Gymnasium (those already registered are left alone)."""
    import gymnasium

    for game, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=ENTRY_POINT, kwargs={"game": game})


__all__ = ["ENTRY_POINT", "ENV_IDS", "register_envs"]
