"""A single-agent Gymnasium environment: the agent plays one seat, a computer player from
:mod:`dominolab.players` (or a policy, for self-play) the other.

Install the PettingZoo extra (``pip install -e '.[pettingzoo]'``: Gymnasium, PettingZoo,
NumPy); the observations and actions are those of :mod:`dominolab.integrations.pettingzoo`.
Importing :mod:`dominolab.integrations` registers one Gymnasium id per game
(:mod:`dominolab.integrations.registration`)::

    import gymnasium
    import dominolab.integrations  # noqa: F401  (registers dominolab/Luzak-v0, ...)

    env = gymnasium.make("dominolab/LuzakLine-v0", opponent="greedy")  # or "random", ...
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

``SingleAgentEnv("luzak-line", opponent="greedy")`` is the same environment, unwrapped.

* **Episode** (``episode=``): ``"hand"`` (the default) is one hand, as in the PettingZoo and
  OpenSpiel adapters (a match is a series of hands whose rewards add up: a learner that
  maximises the hand's margin plays the match well, and short episodes learn faster);
  ``"match"`` is a whole :class:`~dominolab.core.Match` to its target (rule options
  ``target``, ``even_hands``, ``win_at_once`` then act), ending exactly when the match
  ends. Each ``reset`` starts ``Match(game, seed=m)`` with ``m`` drawn from the
  environment's generator, which ``reset(seed=s)`` seeds (Gymnasium's convention): the same
  seed, the same episodes; a hand episode is that match's hand 1. ``reset(options={"deal":
  Deal(...), "opener": 0})`` plays a given deal and/or opener (hand episodes only). The
  agent's seat is ``seat`` (0 or 1), or, with ``seat=None`` (the default), drawn from the
  same generator each episode, so the agent learns both seats and opens about half the
  hands.
* **Opponent** (``opponent=``, or :meth:`SingleAgentEnv.set_opponent` between or during
  episodes): a player spec (``"random"``, ``"greedy"``, ``"pimc:40w"``, ``"expert:200w"``, a
  level ``"easy"`` / ``"medium"`` / ``"hard"``), made each episode with a seed drawn from
  the environment's generator; a :class:`~dominolab.players.Player` instance (used as is),
  which sees only its own seat's :class:`~dominolab.core.View` (``omniscient``, which sees
  every tile, is refused); or a **policy** (:data:`OpponentPolicy`), a callable
  ``policy(observation, action_mask) -> action`` on this environment's own spaces as seen
  from the opponent's seat: the self-play hook, e.g. a frozen copy of the learner. An
  action the policy chooses that is not legal raises :class:`OpponentActionError`, which
  names the action and the position. The opponent moves inside ``reset`` and ``step``
  until the agent is to move or the episode is over.
* **Observation**: the agent's float32 vector of :func:`~dominolab.integrations.pettingzoo.
  observation_layout` (built from the agent's view only); in match episodes two values
  follow, each seat's match total / 100 (the agent's first), the points banked from
  earlier hands and this hand's. **Action**: ``Discrete(n)`` numbered by
  :mod:`dominolab.integrations.actions`.
* **Action mask**: :meth:`SingleAgentEnv.action_masks` (a boolean array of length ``n``,
  what sb3-contrib's ``MaskablePPO`` calls), also ``info["action_mask"]`` after every
  ``reset`` and ``step``; all False once the episode ends.
* **Reward**: the points the agent gained minus the points the opponent gained since the
  agent's last action (the opponent's replies included, across the start of a new hand in
  a match; the first reward also holds what the opponent scored before the agent's first
  action, when it opened): an episode's rewards add up to the agent's margin, for the hand
  or the match, ``info["margin"]`` at the end. A match episode's last ``info`` also has
  ``info["match_result"]`` (the :class:`~dominolab.core.MatchResult`) and
  ``info["winner"]`` (the winning seat, or None for a draw). An illegal action of the agent
  ends the episode (``terminated``) with :func:`~dominolab.integrations.pettingzoo.
  illegal_reward`, as the PettingZoo environment does; ``info["illegal"]`` is then True.
  There is no truncation.
* **Rendering**: ``render_mode="ansi"``: :meth:`SingleAgentEnv.render` returns the text of
  :func:`~dominolab.integrations.pettingzoo.position_text`; ``"rgb_array"``: a uint8 RGB
  array of :func:`~dominolab.integrations.picture.hand_picture` (a spectator's picture:
  both hands, the table, the scores, match totals in a match episode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal, SupportsFloat, TypeAlias

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from dominolab.core import (
    Deal,
    Hand,
    IllegalMoveError,
    Match,
    OptionError,
    View,
    first_opener_by_lot,
    view_of,
)
from dominolab.core.errors import shown
from dominolab.integrations.bounds import hand_points_bound
from dominolab.integrations.pettingzoo import (
    AGENTS,
    illegal_reward,
    position_text,
    raw_env,
)
from dominolab.integrations.picture import hand_picture
from dominolab.players import (
    LEVELS,
    Budget,
    Player,
    SeeingPlayer,
    make_player,
    parse_player_spec,
)
from dominolab.players.observation import POINTS_SCALE

Obs: TypeAlias = npt.NDArray[np.float32]
Mask: TypeAlias = npt.NDArray[np.bool_]
#: a policy for the opponent's seat: ``policy(observation, action_mask) -> action``, both
#: as this environment gives them, seen from the opponent's seat; the action is a whole
#: number (or a NumPy array holding one, as ``model.predict`` returns)
OpponentPolicy: TypeAlias = Callable[[Obs, Mask], Any]
Opponent: TypeAlias = str | Player | OpponentPolicy
Episode: TypeAlias = Literal["hand", "match"]
EPISODES: Final = ("hand", "match")


class OpponentActionError(IllegalMoveError):
    """The opponent's policy chose an action that is not legal in the position."""

    def __init__(self, action: object, position: str, legal: list[int]) -> None:
        super().__init__(f"the opponent's policy chose action {shown(action)}, which is not "
                         f"legal here (legal actions: {shown(legal)}). Position: {position}")
        self.action = action
        self.position = position
        self.legal = tuple(legal)


class SingleAgentEnv(gymnasium.Env[Obs, np.int64]):
    """A hand or a match of a dominolab game against an opponent (see the module doc)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"],  # noqa: RUF012
                                "render_fps": 1}

    def __init__(self, game: str = "luzak", opponent: Opponent = "random",
                 seat: int | None = None, render_mode: str | None = None,
                 episode: Episode = "hand", **options: Any) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None, not {shown(seat)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, not {shown(render_mode)}")
        if episode not in EPISODES:
            raise OptionError(f"episode must be 'hand' or 'match', not {shown(episode)}")
        self.aec = raw_env(game, **options)
        self.game: str = self.aec.game
        self.options = self.aec.options
        self.render_mode = render_mode
        self.episode: Episode = episode
        self.fixed_seat = seat
        self.n = self.aec.codec.num_actions
        self.action_space = spaces.Discrete(self.n)
        self.observation_space = self._observation_space()
        self.illegal_reward = illegal_reward(self.game, self.aec.options)
        self.reward_range = (self.illegal_reward, float(-self.illegal_reward))
        self.metadata = {**self.metadata, "name": f"{self.aec.metadata['name']}_vs_opponent"}
        self.seat = 0
        self._match: Match | None = None  # the match a match episode plays
        self._lone: Hand[Any] | None = None  # the hand a hand episode plays
        self._done = True
        self._carry = 0.0
        self._opponent_seed = 0
        self.opponent_budget: Budget | None = None
        self.opponent_name = ""
        self._spec: str | None = None  # the opponent's spec, made anew each episode
        self.opponent: Player | None = None
        self.policy: OpponentPolicy | None = None
        self.set_opponent(opponent)

    def _observation_space(self) -> spaces.Space[Any]:
        box = self.aec.observation_space(AGENTS[0])["observation"]
        assert isinstance(box, spaces.Box)
        if self.episode == "hand":
            return box
        top = (self.options.target + 2 * hand_points_bound(self.game)) / POINTS_SCALE
        high = np.append(box.high, np.full(2, top, dtype=np.float32))
        return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)

    # -- the opponent ------------------------------------------------------------------------
    def set_opponent(self, opponent: Opponent) -> None:
        """Who plays the other seat from its next move on: a player spec (made now, with the
        episode's seed for it), a :class:`~dominolab.players.Player`, or a policy
        ``(observation, action_mask) -> action`` seen from the opponent's seat (self-play:
        swap in a fresh copy of the learner between rollouts)."""
        if isinstance(opponent, str):
            name, budget = parse_player_spec(opponent)
            player_name = LEVELS[name][0] if name in LEVELS else name
            player = make_player(player_name, self._opponent_seed)
            self._check_player(player)
            self._spec, self.opponent_budget = name, budget
            self.opponent_name, self.opponent, self.policy = player_name, player, None
        elif isinstance(opponent, Player):
            self._check_player(opponent)
            self._spec, self.opponent_budget, self.policy = None, None, None
            self.opponent, self.opponent_name = opponent, opponent.name
        elif callable(opponent):
            self._spec, self.opponent_budget, self.opponent = None, None, None
            self.policy, self.opponent_name = opponent, "policy"
        else:
            raise TypeError("the opponent must be a player spec, a Player or a policy "
                            f"(observation, action_mask) -> action, not {shown(opponent)}")

    @staticmethod
    def _check_player(player: object) -> None:
        if isinstance(player, SeeingPlayer) and getattr(player, "sees_all", False):
            raise OptionError("the opponent must play from its own view; a player that sees "
                              "every tile (omniscient) is not allowed")

    # -- what the agent sees ------------------------------------------------------------------
    @property
    def agent(self) -> str:
        return AGENTS[self.seat]

    @property
    def hand(self) -> Hand[Any]:
        """The hand being played, or the last one (the whole state: not for the agent)."""
        if self._match is not None:
            return self._match.hand
        if self._lone is None:
            raise RuntimeError("call reset() before using the environment")
        return self._lone

    @property
    def match(self) -> Match | None:
        """The match of a match episode (None in hand episodes)."""
        return self._match

    def _totals(self) -> tuple[int, int]:
        if self._match is not None:
            return self._match.totals
        return (self.hand.points[0], self.hand.points[1])

    def view_of(self, seat: int) -> View:
        """What ``seat`` may see now (its observation and its moves come from this alone)."""
        if self._match is not None:
            return self._match.view(seat)
        return view_of(self.hand, seat)

    def view(self) -> View:
        """The agent's view (its observation is built from this alone)."""
        return self.view_of(self.seat)

    def _mask(self, seat: int) -> Mask:
        mask = np.zeros(self.n, dtype=np.bool_)
        if not self._done and self.hand.to_move == seat:
            mask[self.aec.codec.legal_actions(self.hand)] = True
        return mask

    def action_masks(self) -> Mask:
        """The legal actions of the agent now (all False once the episode is over)."""
        return self._mask(self.seat)

    def _obs(self, seat: int) -> Obs:
        features = self.aec.features(self.view_of(seat))
        if self._match is None:
            return features
        totals = self._match.totals
        extra = np.array([totals[seat], totals[1 - seat]], dtype=np.float32) / POINTS_SCALE
        return np.concatenate([features, extra])

    def _info(self, **extra: Any) -> dict[str, Any]:
        hand = self.hand
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat,
                                "opener": hand.opener, **extra}
        if self._done:
            totals = self._totals()
            info["margin"] = totals[self.seat] - totals[1 - self.seat]
            if self._match is not None and self._match.result is not None:
                info["match_result"] = self._match.result
                info["winner"] = self._match.result.winner
        return info

    # -- Gymnasium's API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        match_seed = int(rng.integers(2**62))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(2))
        self._opponent_seed = int(rng.integers(2**31))
        if self._spec is not None:
            self.opponent = make_player(self.opponent_name, self._opponent_seed)
        given = options or {}
        if self.episode == "match":
            if "deal" in given or "opener" in given:
                raise OptionError("a match episode deals its own hands: options 'deal' and "
                                  "'opener' are for hand episodes")
            self._match, self._lone = Match(self.game, self.options, seed=match_seed), None
        else:
            deal = given.get("deal") or Deal.for_hand(match_seed, 1, self.aec.spec.hand_size)
            if not isinstance(deal, Deal):
                raise TypeError(f"options['deal'] must be a Deal, not {type(deal).__name__}")
            opener = given.get("opener", first_opener_by_lot(match_seed))
            if opener not in (0, 1):
                raise OptionError(f"options['opener'] must be 0 or 1, not {shown(opener)}")
            self._lone = self.aec.spec.hand_class(deal, opener, self.options)
            self._match = None
        self._done = False
        # what the opponent scores before the agent's first action comes with its reward
        self._carry = self._opponent_moves()
        return self._obs(self.seat), self._info()

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        if not (0 <= a < self.n and self.action_masks()[a]):
            self._done = True
            return (self._obs(self.seat), self.illegal_reward, True, False,
                    self._info(illegal=True))
        reward = self._carry + self._play(a)
        self._carry = 0.0
        reward += self._opponent_moves()
        return self._obs(self.seat), float(reward), self._done, False, self._info(illegal=False)

    def _play(self, action: int) -> float:
        """Play a legal action of the seat to move; the agent's margin gained by it."""
        before = self._totals()
        move = self.aec.codec.move(self.hand, action)
        if self._match is not None:
            self._match.apply_unchecked(move)
            self._done = self._match.result is not None
        else:
            self.hand.apply_unchecked(move)
            self._done = self.hand.result is not None
        after = self._totals()
        me, other = self.seat, 1 - self.seat
        return float((after[me] - before[me]) - (after[other] - before[other]))

    def _opponent_moves(self) -> float:
        """The opponent plays until the agent is to move or the episode ends; the agent's
        rewards meanwhile."""
        gained = 0.0
        other = 1 - self.seat
        while not self._done and self.hand.to_move == other:
            gained += self._play(self._opponent_action(other))
        return gained

    def _opponent_action(self, seat: int) -> int:
        """The opponent's action: its player's move on its own view, or its policy's."""
        if self.policy is None:
            assert self.opponent is not None
            return self.aec.codec.encode(self.opponent.choose(self.view_of(seat),
                                                              self.opponent_budget))
        mask = self._mask(seat)
        choice = self.policy(self._obs(seat), mask.copy())
        number = np.asarray(choice)
        if number.size == 1 and np.issubdtype(number.dtype, np.integer):
            a = int(number.reshape(()))
            if 0 <= a < self.n and mask[a]:
                return a
        raise OpponentActionError(choice, self.hand.describe(), np.flatnonzero(mask).tolist())

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        number = self._match.hand_number if self._match is not None else 1
        if self.render_mode == "rgb_array":
            return hand_picture(self.hand, self._totals() if self._match is not None else None)
        return position_text(self.hand, number)


__all__ = ["EPISODES", "Episode", "Opponent", "OpponentActionError", "OpponentPolicy",
           "SingleAgentEnv"]
