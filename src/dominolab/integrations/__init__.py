"""Adapters to research frameworks (optional extras): ``openspiel``, ``pettingzoo``, and the
single-agent Gymnasium environment (``single_agent``).

They number moves the same way (:mod:`dominolab.integrations.actions`) and build what a
player observes from the engine's per-seat views. Importing this package registers the
Gymnasium ids ``dominolab/Luzak-v0``, ``dominolab/LuzakLine-v0`` and ``dominolab/Widelec-v0``
(:mod:`dominolab.integrations.registration`) when Gymnasium is installed.
"""

from importlib.util import find_spec

if find_spec("gymnasium") is not None:
    from dominolab.integrations.registration import register_envs

    register_envs()
