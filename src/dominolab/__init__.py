"""dominolab: Luzak, Luzak without spinners and Widelec (Kwartety) by Andrzej Lewicki.

The rules live in :mod:`dominolab.core`; players, the terminal game and tools build on it.
"""

__version__ = "0.1.0"
