"""PettingZoo AEC environments for Luzak, Luzak without spinners and Widelec (Kwartety).

Create one with ``env(game="luzak", render_mode=None, opener=None, **options)`` (wrapped the
way PettingZoo's classic environments are: an illegal action ends the episode, the agent that
made it getting :func:`illegal_reward`, below any hand's margin, and the other 0) or
``raw_env(...)`` (unwrapped; an illegal action raises
:class:`~dominolab.core.IllegalMoveError`). Each game's environment has its own name,
``metadata["name"]``: ``luzak_v0``, ``luzak_line_v0``, ``widelec_v0``. ``game`` is
``"luzak"``, ``"luzak-line"`` or ``"widelec"`` (aliases such as ``"kwartety"`` work). Rule
options are keyword arguments, checked by the game's options class
(``short_ends_any_time=False``, ``must_play_drawn=False``, ...; an unknown name or a wrong
type raises :class:`~dominolab.core.OptionError`).

**Agents** ``"player_0"`` and ``"player_1"`` are seats 0 and 1. **Actions** are
``Discrete(codec(game).num_actions)``, numbered by :mod:`dominolab.integrations.actions`
(Luzak 2744, Luzak without spinners 168, Widelec 171: its ``draw``, ``pass`` and ``keep``
are actions like any play; the tile drawn is taken inside the engine from the seeded boneyard).

**Episodes.** One episode is one hand. ``reset(seed=s)`` deals hand 1 of the match with seed
``s`` (exactly as ``Match(game, seed=s)`` does: :meth:`Deal.for_hand` and the opener drawn by
lot); every ``reset()`` without a seed deals the next hand of that match, the opener
alternating. Before any seed is given, a fresh match seed is drawn from a NumPy generator
seeded by the operating system. A constructor argument ``opener=0`` or ``1`` fixes the opener
of every hand. ``reset(options={"deal": Deal(...), "opener": 0})`` plays a given deal and/or
opener once (other keys in ``options`` are ignored). The hand ends when the engine says so
(12 tiles laid; Widelec: a player goes out or both pass): both agents are terminated, never
truncated. Match options (``target``, ``even_hands``, ``win_at_once``) are accepted and
checked but do not act within one hand.

**Rewards** are given at every move, zero-sum: the points each seat gained with the move
(Widelec's end-of-hand quartet bonus included, on the move that ends the hand) minus the
points the other seat gained. An agent's rewards over an episode therefore add up to its
margin for the hand, ``points[own] - points[other]``.

**Observations** are ``{"observation": float32 vector, "action_mask": int8 vector}``, built
only from the engine's per-seat :class:`~dominolab.core.View` (never from hidden tiles). The
mask marks the legal actions of the agent to move, and is all zeros for the other agent and
once the hand is over. The vector's layout (``raw_env.layout`` maps each name to its slice):

Luzak (69 values)::

    0-27    hand            own tiles, one-hot by tile index ([0|0], [1|0], [1|1], ... [6|6])
    28-55   table           tiles on the table, one-hot by tile index
    56-62   ports           number of free ports of each value 0..6 (raw counts)
    63      tiles_on_table  n / 12 (the next tile laid is number n + 1)
    64      count           the table count / 100
    65      my_points       own points in this hand / 100
    66      their_points    the opponent's points in this hand / 100
    67      their_tiles     tiles in the opponent's hand / 28
    68      opener          1 if this agent opened the hand

Luzak without spinners (80 values) and Widelec (81 values)::

    0-27    hand            own tiles, one-hot by tile index
    28-55   table           tiles on the table, one-hot by tile index
    56-62   left_values     one-hot of the value(s) a tile may match at the L end
                            (both halves of a luzak lying across that end)
    63      left_double     the tile at the L end is a double
    64      left_luzak      the tile at the L end is a luzak (never in Widelec)
    65-71   right_values    as 56-62 for the R end
    72      right_double
    73      right_luzak
    74      tiles_on_table  n / 12 (Widelec: n / 28)
    then, Luzak without spinners:
    75      count           the table count / 100
    76      my_points       77 their_points (both / 100)
    78      their_tiles     / 28
    79      opener
    or Widelec:
    75      my_points       76 their_points (both / 100)
    77      their_tiles     / 28 (drawing can take a hand past 7 tiles)
    78      boneyard        tiles in the boneyard / 14
    79      drawn_pending   1 if this agent has just drawn a playable tile: the mask then holds
                            only that tile's plays (and ``keep`` if must_play_drawn is off)
    80      opener

**Rendering**: ``render_mode="ansi"`` makes :meth:`raw_env.render` return a text picture of
the table (the free ports labelled ``name:value``), the count, both scores and both hands (a
spectator's view); ``"human"`` prints it after every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped, unused-ignore]

from dominolab.core import (
    Deal,
    Hand,
    Options,
    View,
    first_opener_by_lot,
    get_game,
    view_of,
)
from dominolab.integrations.actions import ActionCodec, codec
from dominolab.integrations.bounds import hand_points_bound
from dominolab.players.observation import (
    observation,
    observation_high,
    observation_layout,
)

AGENTS: Final = ("player_0", "player_1")
#: each game's environment name (``metadata["name"]``)
ENV_NAMES: Final = {"luzak": "luzak_v0", "luzak-line": "luzak_line_v0", "widelec": "widelec_v0"}


def illegal_reward(game: str, options: Options | None = None) -> float:
    """The reward of an illegal action in ``env(game)``, which ends the episode.

    PettingZoo's convention (its ``TerminateIllegalWrapper``, as in its classic games: chess,
    connect four, tic-tac-toe) is that an illegal move ends the game, the offender getting
    the lowest reward (the loss, -1 there) and everyone else 0. Here rewards are points, so
    the lowest reward is scaled: twice the most that both seats can score in one hand
    (:func:`~dominolab.integrations.bounds.hand_points_bound`), and never less than the
    match target. The offender's return for the episode (what it earned before, at most that
    bound, plus this) is then worse than any hand played out legally, and worse than losing
    a match by the whole target.
    """
    bound = 2 * hand_points_bound(game)
    target = options.target if options is not None else 0
    return -float(max(bound, target))

ObsDict = dict[str, npt.NDArray[Any]]


def env(game: str = "luzak", render_mode: str | None = None, opener: int | None = None,
        **options: Any) -> Any:
    """The environment with PettingZoo's standard wrappers (as the classic games have):
    an illegal action ends the episode, its agent getting :func:`illegal_reward` (far below
    any hand's margin) and the other 0; order is enforced."""
    wrapped: Any = raw_env(game, render_mode, opener, **options)
    wrapped = wrappers.TerminateIllegalWrapper(
        wrapped, illegal_reward=illegal_reward(wrapped.game, wrapped.options))
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


def _metadata(game: str) -> dict[str, Any]:
    return {"render_modes": ["human", "ansi"], "name": ENV_NAMES[game],
            "is_parallelizable": False, "render_fps": 1}


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    """One hand of a dominolab game as a two-agent AEC environment (see the module doc).

    ``raw_env(game)`` is an instance of that game's subclass (:class:`LuzakEnv`,
    :class:`LuzakLineEnv`, :class:`WidelecEnv`), whose class-level ``metadata["name"]`` is
    the game's environment name (``luzak_v0``, ``luzak_line_v0``, ``widelec_v0``).
    """

    GAME: str = "luzak"
    metadata: dict[str, Any] = _metadata("luzak")

    def __new__(cls, game: str | None = None, *args: Any, **kwargs: Any) -> raw_env:
        target = _ENV_CLASSES[get_game(game or cls.GAME).name]
        new: raw_env = super().__new__(target if issubclass(target, cls) else cls)
        return new

    def __init__(self, game: str | None = None, render_mode: str | None = None,
                 opener: int | None = None, **options: Any) -> None:
        game = game or self.GAME
        EzPickle.__init__(self, game, render_mode, opener, **options)
        super().__init__()
        self.spec = get_game(game)
        self.game = self.spec.name
        if self.game != self.GAME:
            raise ValueError(f"{type(self).__name__} plays {self.GAME}, not {game}")
        self.options: Options = self.spec.options_class.from_dict(options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, not {render_mode!r}")
        if opener is not None and opener not in (0, 1):
            raise ValueError(f"opener must be 0, 1 or None, not {opener!r}")
        self.render_mode = render_mode
        self.fixed_opener = opener
        self.codec: ActionCodec = codec(self.game)
        self.layout = observation_layout(self.game)
        high = observation_high(self.spec)
        self._size = int(high.shape[0])

        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = list(AGENTS)
        n = self.codec.num_actions
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=np.zeros(self._size, dtype=np.float32),
                                          high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
            })
            for a in AGENTS
        }
        self._rng: np.random.Generator | None = None
        self.match_seed: int | None = None
        self.hand_number = 0
        self._hand: Hand[Any] | None = None
        self.rewards: dict[str, float] = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards: dict[str, float] = dict.fromkeys(AGENTS, 0.0)
        self.terminations: dict[str, bool] = dict.fromkeys(AGENTS, False)
        self.truncations: dict[str, bool] = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection: str = AGENTS[0]

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # -- the engine ------------------------------------------------------------------------
    @property
    def hand(self) -> Hand[Any]:
        """The engine's hand being played (the whole state: do not show it to an agent)."""
        if self._hand is None:
            raise RuntimeError("call reset() before using the environment")
        return self._hand

    def view(self, agent: str) -> View:
        """What ``agent`` may see, from the engine (the observation is built from this)."""
        return view_of(self.hand, AGENTS.index(agent), hand_number=self.hand_number)

    # -- the AEC API -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if seed is not None:
            self.match_seed = int(seed)
            self.hand_number = 1
        elif self.match_seed is None:
            if self._rng is None:
                self._rng = np.random.default_rng()
            self.match_seed = int(self._rng.integers(2**62))
            self.hand_number = 1
        else:
            self.hand_number += 1
        given = options or {}
        deal = given.get("deal")
        if deal is None:
            deal = Deal.for_hand(self.match_seed, self.hand_number, self.spec.hand_size)
        elif not isinstance(deal, Deal):
            raise TypeError(f"options['deal'] must be a Deal, not {type(deal).__name__}")
        opener = given.get("opener", self.fixed_opener)
        if opener is None:
            first = first_opener_by_lot(self.match_seed)
            opener = first if self.hand_number % 2 == 1 else 1 - first
        self._hand = self.spec.hand_class(deal, opener, self.options)

        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._hand.to_move]
        self._skip_agent_selection = None

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give an action, not None")
        hand = self.hand
        move = self.codec.move(hand, int(action))
        before = hand.points.copy()
        hand.apply_unchecked(move)
        gain = (hand.points[0] - before[0], hand.points[1] - before[1])
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {AGENTS[0]: float(gain[0] - gain[1]), AGENTS[1]: float(gain[1] - gain[0])}
        if hand.result is not None:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = AGENTS[hand.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> ObsDict:
        view = self.view(agent)
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        if view.legal_moves:
            mask[[self.codec.encode(m) for m in view.legal_moves]] = 1
        return {"observation": self.features(view), "action_mask": mask}

    def features(self, view: View) -> npt.NDArray[np.float32]:
        """The observation vector of a view (layout in the module doc)."""
        return observation(view)

    # -- text ------------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode.")
            return None
        text = self.text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def text(self) -> str:
        """The position as text: the table, the count, scores and both hands."""
        return position_text(self.hand, self.hand_number)

    def close(self) -> None:
        pass


def position_text(hand: Hand[Any], hand_number: int = 1) -> str:
    """A spectator's text of ``hand``: the table (free ports labelled ``name:value``), the
    count, both scores and both hands, and who is to move or how the hand ended."""
    from dominolab.text import draw_table

    spec = get_game(hand.GAME)
    lines = [f"{spec.title}, hand {hand_number}, {AGENTS[hand.opener]} opened; "
             f"{hand.n} tiles on the table"]
    lines += draw_table(spec, hand.options, hand.table_placements)
    seen = view_of(hand, 0)
    if seen.count is not None:
        lines.append(f"  count {seen.count}")
    if seen.boneyard is not None:
        lines.append(f"  boneyard {seen.boneyard} tiles")
    for seat, agent in enumerate(AGENTS):
        tiles = " ".join(map(str, hand.hands[seat])) or "(none)"
        lines.append(f"{agent}: {hand.points[seat]} points; holds {tiles}")
    if hand.result is not None:
        r = hand.result
        won = f", {AGENTS[r.winner]} won" if r.winner is not None else ""
        lines.append(f"hand over ({r.end}{won}): {r.points[0]}-{r.points[1]}"
                     + (f" (bonus {r.bonus})" if r.bonus else ""))
    else:
        lines.append(f"{AGENTS[hand.to_move]} to move")
    return "\n".join(lines)


class LuzakEnv(raw_env):
    """Luzak (``raw_env("luzak")``)."""

    GAME = "luzak"
    metadata = _metadata("luzak")


class LuzakLineEnv(raw_env):
    """Luzak without spinners (``raw_env("luzak-line")``)."""

    GAME = "luzak-line"
    metadata = _metadata("luzak-line")


class WidelecEnv(raw_env):
    """Widelec / Kwartety (``raw_env("widelec")``)."""

    GAME = "widelec"
    metadata = _metadata("widelec")


_ENV_CLASSES: Final[dict[str, type[raw_env]]] = {
    "luzak": LuzakEnv, "luzak-line": LuzakLineEnv, "widelec": WidelecEnv,
}

__all__ = ["AGENTS", "ENV_NAMES", "LuzakEnv", "LuzakLineEnv", "WidelecEnv", "env",
           "illegal_reward", "observation_layout", "position_text", "raw_env"]

