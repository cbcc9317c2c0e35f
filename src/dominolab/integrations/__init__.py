"""Adapters to research frameworks (optional extras): ``openspiel``, ``pettingzoo``.

Both number moves the same way (:mod:`dominolab.integrations.actions`) and build what a
player observes from the engine's per-seat views.
"""
