"""OpenSpiel games for Luzak, Luzak without spinners and Widelec: one hand per episode.

Importing this module registers ``python_luzak``, ``python_luzak_line`` and
``python_widelec`` with ``pyspiel`` (the ``openspiel`` extra)::

    import pyspiel
    import dominolab.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("python_luzak", {"short_ends_any_time": False, "opener": 1})

The rules all come from the engine (:mod:`dominolab.core`): a state wraps a
:class:`~dominolab.core.Hand` built from a :class:`~dominolab.core.Deal` once dealing ends.

* **Chance.** The deal is dealt tile by tile: seat 0's tiles, then seat 1's; each outcome
  is a tile index 0..27 among the undealt tiles, uniform. Luzak's four unused tiles stay
  undealt. Widelec's boneyard is not ordered at deal time: after a ``draw`` action the next
  node is a chance node choosing the drawn tile uniformly among the boneyard's tiles.
* **Actions** are the shared numbering of :mod:`dominolab.integrations.actions`.
* **Returns** (terminal only) are the hand's point margin, ``[p0 - p1, p1 - p0]``.
* **Observations** are built from the engine's per-seat :class:`~dominolab.core.View` (and
  the public action record); see :class:`DominoObserver` for the tensor layout.
* ``resample_from_infostate`` redeals what the player cannot see (the opponent's tiles, the
  unused tiles or the boneyard, the opponent's hidden draws) exactly from the posterior
  given what the opponent's moves proved (:class:`dominolab.core.worlds.HiddenWorlds`), then
  replays the whole history, so OpenSpiel's ISMCTS bot runs unmodified.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from dominolab.core import (
    DRAW,
    TILES,
    Deal,
    Draw,
    GameSpec,
    Hand,
    InvalidMoveError,
    Play,
    View,
    WidelecHand,
    get_game,
    view_of,
)
from dominolab.core.worlds import HiddenWorlds
from dominolab.integrations.actions import ActionCodec, codec
from dominolab.integrations.bounds import hand_points_bound

#: Options that only matter across hands (a match), not within the one hand modelled here.
MATCH_OPTIONS: Final = frozenset({"target", "even_hands", "win_at_once"})
#: The short names registered, by engine game name.
SHORT_NAMES: Final[dict[str, str]] = {
    "luzak": "python_luzak",
    "luzak-line": "python_luzak_line",
    "widelec": "python_widelec",
}
_TREE_PORTS: Final = 12 * 4  # Luzak: tile number 1..12, sides w e n s
_TRIES: Final = 400  # worlds tried per resample before giving up
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


_max_points = hand_points_bound  # the utility bound: what one hand can give


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything a state needs to know about its game (shared, never copied)."""

    spec: GameSpec
    codec: ActionCodec
    options: Any
    opener: int
    #: rows of the information state's move history (the most moves in a hand)
    history_rows: int

    @property
    def hand_size(self) -> int:
        return self.spec.hand_size

    @property
    def tree(self) -> bool:
        return self.spec.table == "tree"

    @property
    def widelec(self) -> bool:
        return self.spec.has_boneyard


def parameters(game: str) -> dict[str, bool | int]:
    """The OpenSpiel parameters of a game and their defaults: every rule option of the game
    that matters within one hand, and ``opener`` (the seat that leads, 0 or 1)."""
    spec = get_game(game)
    defaults = spec.options_class().to_dict()
    out: dict[str, bool | int] = {k: v for k, v in defaults.items() if k not in MATCH_OPTIONS}
    out["opener"] = 0
    return out


def _game_type(spec: GameSpec) -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAMES[spec.name],
        long_name=f"Python {spec.title} (dominolab, one hand)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters(spec.name),
    )


def max_game_length(spec: GameSpec) -> int:
    """Deal steps, the most moves of a hand and (Widelec) one chance node per draw."""
    draws = 28 - 2 * spec.hand_size if spec.has_boneyard else 0
    return 2 * spec.hand_size + spec.max_moves_per_hand + draws


def _game_info(spec: GameSpec) -> Any:
    bound = _max_points(spec)
    return pyspiel.GameInfo(
        num_distinct_actions=codec(spec.name).num_actions,
        max_chance_outcomes=28,
        num_players=2,
        min_utility=-float(bound),
        max_utility=float(bound),
        utility_sum=0.0,
        max_game_length=max_game_length(spec),
    )


class DominoGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of a dominolab game as an OpenSpiel game (subclassed per game)."""

    GAME: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = get_game(self.GAME)
        super().__init__(_TYPES[spec.name], _INFOS[spec.name], params or {})
        given = self.get_parameters()
        names = parameters(spec.name)
        values = {k: given.get(k, v) for k, v in names.items()}
        opener = int(values.pop("opener"))
        if opener not in (0, 1):
            raise ValueError(f"opener must be 0 or 1, not {opener}")
        options = spec.options_class.from_dict({k: bool(v) for k, v in values.items()})
        self.config = GameConfig(spec, codec(spec.name), options, opener,
                                 spec.max_moves_per_hand)

    def new_initial_state(self) -> DominoState:
        return DominoState(self, self.config)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> DominoObserver:
        return DominoObserver(
            self.config, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            params)


class LuzakGame(DominoGame):
    GAME = "luzak"


class LuzakLineGame(DominoGame):
    GAME = "luzak-line"


class WidelecGame(DominoGame):
    GAME = "widelec"


class _Core:
    """A state's data, copied cheaply (the engine's ``Hand.copy``) when OpenSpiel clones a
    state: ``State.clone`` deep-copies the Python attributes."""

    __slots__ = ("cfg", "dealt", "hand", "drawing", "record")

    def __init__(self, cfg: GameConfig) -> None:
        self.cfg = cfg
        #: tiles dealt so far, in order: seat 0's, then seat 1's
        self.dealt: list[int] = []
        self.hand: Hand[Any] | None = None
        #: Widelec: a draw was chosen, the chance node picks the tile
        self.drawing = False
        #: every player action as (seat, action, tile drawn or -1)
        self.record: list[tuple[int, int, int]] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core.__new__(_Core)
        new.cfg = self.cfg
        new.dealt = self.dealt.copy()
        new.hand = None if self.hand is None else self.hand.copy()
        new.drawing = self.drawing
        new.record = self.record.copy()
        return new

    def dealt_to(self, seat: int) -> list[int]:
        size = self.cfg.hand_size
        return self.dealt[:size] if seat == 0 else self.dealt[size:]


class DominoState(pyspiel.State):  # type: ignore[misc]
    """A state of one hand: dealing (chance), play, Widelec draws (chance), the end."""

    def __init__(self, game: DominoGame, cfg: GameConfig) -> None:
        super().__init__(game)
        self._core = _Core(cfg)

    # -- the engine, read-only, for tests and tools ------------------------------------------
    @property
    def hand(self) -> Hand[Any] | None:
        """The engine's hand once dealt (full information: not for players)."""
        return self._core.hand

    def view(self, seat: int) -> View | None:
        """The engine's view of ``seat`` once dealt."""
        hand = self._core.hand
        return None if hand is None else view_of(hand, seat)

    @property
    def record(self) -> tuple[tuple[int, int, int], ...]:
        """Every player action as (seat, action, tile drawn or -1)."""
        return tuple(self._core.record)

    # -- the OpenSpiel API -----------------------------------------------------------------------
    def current_player(self) -> int:
        core = self._core
        hand = core.hand
        if hand is None or core.drawing:
            return _CHANCE
        if hand.result is not None:
            return _TERMINAL
        return hand.to_move

    def _legal_actions(self, player: int) -> list[int]:
        hand = self._core.hand
        assert hand is not None and player == hand.to_move
        return self._core.cfg.codec.legal_actions(hand)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        core = self._core
        if core.hand is None:
            dealt = set(core.dealt)
            tiles = [i for i in range(28) if i not in dealt]
        else:
            assert core.drawing and isinstance(core.hand, WidelecHand)
            tiles = sorted(t.index for t in core.hand.boneyard)
        p = 1.0 / len(tiles)
        return [(i, p) for i in tiles]

    def _apply_action(self, action: int) -> None:
        core = self._core
        cfg = core.cfg
        hand = core.hand
        if hand is None:
            if not 0 <= action < 28 or action in core.dealt:
                raise ValueError(f"tile {action} is not undealt")
            core.dealt.append(action)
            size = cfg.hand_size
            if len(core.dealt) == 2 * size:
                seats = (sorted(core.dealt[:size]), sorted(core.dealt[size:]))
                used = set(core.dealt)
                deal = Deal((tuple(TILES[i] for i in seats[0]), tuple(TILES[i] for i in seats[1])),
                            tuple(t for t in TILES if t.index not in used))
                core.hand = cfg.spec.hand_class(deal, cfg.opener, cfg.options)
            return
        if core.drawing:
            assert isinstance(hand, WidelecHand)
            tile = TILES[action]
            boneyard = hand.boneyard
            boneyard.remove(tile)  # ValueError if it is not there
            boneyard.append(tile)  # the engine draws from the end
            hand.apply_unchecked(DRAW)
            core.drawing = False
            seat, drew, _ = core.record[-1]
            core.record[-1] = (seat, drew, action)
            return
        seat = hand.to_move
        move = cfg.codec.move(hand, action)  # IllegalMoveError unless legal
        core.record.append((seat, action, -1))
        if isinstance(move, Draw):
            core.drawing = True
        else:
            hand.apply_unchecked(move)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            word = "draw" if self._core.hand is not None else "deal"
            return f"{word} {TILES[action]}"
        return _action_text(self._core, player, action)

    def is_terminal(self) -> bool:
        hand = self._core.hand
        return hand is not None and hand.result is not None

    def returns(self) -> list[float]:
        hand = self._core.hand
        if hand is None or hand.result is None:
            return [0.0, 0.0]
        margin = float(hand.points[0] - hand.points[1])
        return [margin, -margin]

    def __str__(self) -> str:
        """The whole state (hidden tiles included), for debugging and serialization checks."""
        core = self._core
        hand = core.hand
        if hand is None:
            return " ".join(f"seat{s}:[{' '.join(str(TILES[i]) for i in core.dealt_to(s))}]"
                            for s in (0, 1)) + " dealing"
        parts = [f"seat{s}:[{' '.join(map(str, hand.hands[s]))}]" for s in (0, 1)]
        parts.append("table:" + " ".join(map(str, hand.table_placements)))
        if core.cfg.spec.has_boneyard:
            assert isinstance(hand, WidelecHand)  # the hand class that holds a boneyard
            parts.append("boneyard:[" + " ".join(map(str, hand.boneyard)) + "]")
        parts.append(f"points:{hand.points[0]}:{hand.points[1]}")
        parts.append("moves:" + " ".join(
            _record_text(core, r, None) for r in range(len(core.record))))
        if core.drawing:
            parts.append("drawing")
        if hand.result is not None:
            parts.append(f"over:{hand.result.end}")
        return " ".join(parts)

    # -- sampling what a player cannot see --------------------------------------------------------
    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float] | None = None
                                ) -> DominoState:
        """A state with the same information state for ``player_id``: the opponent's tiles,
        the unused tiles or the boneyard and the opponent's hidden draws dealt at random,
        consistently with what the opponent's moves proved; its history replays the
        original's actions with those tiles in the chance outcomes."""
        rng = _rng_from(probability_sampler, f"{player_id}:{self.history_str()}")
        game = self.get_game()
        core = self._core
        for _ in range(_TRIES):
            actions = _world_actions(core, player_id, rng)
            if actions is None:
                continue
            state = _replay(game, actions)
            if state is not None:
                return state
        raise pyspiel.SpielError(f"no world consistent with seat {player_id}'s information "
                                 f"was found in {_TRIES} tries: {self}")


def _rng_from(sampler: Callable[[], float] | None, fallback: str) -> random.Random:
    """A generator seeded from OpenSpiel's sampler, or, without one, from ``fallback`` (the
    player and the history): never unseeded, so the same calls give the same worlds."""
    if sampler is None:
        return random.Random(fallback)
    try:
        bits = int(sampler() * 2**32) * 2**32 + int(sampler() * 2**32)
    except TypeError:
        return random.Random(fallback)
    return random.Random(bits)


def _replay(game: Any, actions: Sequence[int]) -> DominoState | None:
    state: DominoState = game.new_initial_state()
    try:
        for action in actions:
            state.apply_action(action)
    except ValueError:  # an illegal move in this world (IllegalMoveError or a tile not
        return None     # available): the caller tries another
    return state


def _world_actions(core: _Core, player: int, rng: random.Random) -> list[int] | None:
    """The history of one world consistent with ``player``'s information, or None if the
    tiles chosen do not fit (the caller tries again)."""
    cfg = core.cfg
    size = cfg.hand_size
    opp = 1 - player
    hand = core.hand
    if hand is None:  # still dealing: the opponent's dealt tiles are unseen
        mine = set(core.dealt_to(player))
        pool = [i for i in range(28) if i not in mine]
        rng.shuffle(pool)
        own_slots = range(size) if player == 0 else range(size, 2 * size)
        return [t if i in own_slots else pool.pop() for i, t in enumerate(core.dealt)]
    view = view_of(hand, player)
    record = core.record
    # a draw's chance node: the opponent has drawn, the tile is still to come. The view (the
    # engine's moves) does not hold that draw yet, but it proves the same as any draw: the
    # opponent holds no tile fitting any free port now.
    drawing = core.drawing and record[-1][0] == opp
    try:
        worlds = HiddenWorlds(view, drawing=drawing)
    except InvalidMoveError:
        return None
    held, _, hidden = worlds.sample_draws(rng)  # exact: see HiddenWorlds
    theirs = [t.index for t in held]
    drawn = [r[2] for r in record]
    for i, got in hidden.items():
        drawn[i] = got.index
    # tiles the opponent laid (they were dealt or drawn)
    laid_at = {mv.tile.index: i for i, (s, mv) in enumerate(hand.moves)
               if s == opp and isinstance(mv, Play)}
    opp_drawn = {d for (s, _, _), d in zip(record, drawn, strict=True) if s == opp and d >= 0}
    initial = sorted((set(theirs) | set(laid_at)) - opp_drawn)
    if len(initial) != size:
        return None
    rng.shuffle(initial)
    own = core.dealt_to(player)
    actions = [*own, *initial] if player == 0 else [*initial, *own]
    for (_, action, _), tile in zip(record, drawn, strict=True):
        actions.append(action)
        if tile >= 0:
            actions.append(tile)
    return actions


def _action_text(core: _Core, player: int, action: int) -> str:
    """An action in the engine's notation (``str(move)``), so a luzak keeps its ``*``.

    Whether a play is a luzak is not in the action number but in the position: when
    ``player`` is to move and ``action`` is legal, the move is the engine's own; otherwise
    (an action named out of turn) the number alone is described, without the marker."""
    hand = core.hand
    cd = core.cfg.codec
    if (hand is not None and hand.result is None and not core.drawing
            and player == hand.to_move):
        for move in hand.legal_moves():
            if cd.encode(move) == action:
                return str(move)
    return cd.describe(action)


def _record_text(core: _Core, r: int, seat: int | None) -> str:
    """Recorded action ``r`` in the engine's notation (a luzak with its ``*``); a drawn tile
    is shown only to its drawer (``seat``)."""
    s, action, tile = core.record[r]
    hand = core.hand
    assert hand is not None
    # the engine's moves and the record agree move by move (a draw waiting for its chance
    # outcome is in the record only)
    text = f"{s}:{hand.moves[r][1] if r < len(hand.moves) else core.cfg.codec.describe(action)}"
    if tile >= 0 and seat == s:
        text += str(TILES[tile])
    return text


# -- observations -------------------------------------------------------------------------------

class DominoObserver:
    """Observation and information-state tensors and strings (OpenSpiel's PyObserver).

    Built from the engine's :class:`~dominolab.core.View` of the observing seat, and, for
    the information state, the public action record (a seat's own drawn tiles are shown to
    that seat only). Pieces of the flat tensor, in order (``seat`` pieces are by seat
    number, not relative to the observer):

    * ``player`` (2): the observing seat, one-hot.
    * ``hand`` (28): the observer's tiles (private; absent without private information).
    * ``to_move`` (2): the seat to move, one-hot (zeros at chance nodes and the end).
    * ``table`` (28): tiles on the table.
    * ``n`` (1): tiles on the table (N).
    * ``tile_counts`` (2): tiles in each seat's hand.
    * ``points`` (2): each seat's points in this hand.
    * Luzak: ``ports`` (48, 7): for tile number k = 1..12 and side w, e, n, s (the action
      numbering's slots 1-48), the value of that port one-hot when it is free;
      ``count`` (1): the table count.
    * Luzak without spinners and Widelec: ``ends`` (2, 7): the values a tile may match at
      ends L and R (both halves of a luzak across an end); ``end_tiles`` (2, 28): the tile
      at each end. Luzak without spinners also ``count`` (1).
    * Widelec: ``boneyard`` (1): tiles in the boneyard; ``pending`` (1): the seat to move
      drew a tile that fits and must lay it (or keep it); ``drawing`` (1): a draw waits
      for its chance outcome.
    * Information state only: ``history`` (rows, width): one row per action in order,
      ``seat`` (2, one-hot) ``tile`` (28) ``inner`` (7, the half laid against the port)
      ``slot`` (49 Luzak / 3 line: the lead, then the ports) [Luzak games: ``luzak`` (1)]
      [Widelec: ``draw`` ``pass`` ``keep`` (3)]; a draw's tile is set for the observer's own
      draws only. Rows: 12 (Luzak games), 58 (Widelec).
    """

    def __init__(self, cfg: GameConfig, iig_obs_type: Any, params: dict[str, Any] | None
                 ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations with every player's private information are not "
                             "supported")
        self.cfg = cfg
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        self.recall = bool(iig_obs_type.perfect_recall)
        self.slots = cfg.codec.slots
        self.line = not cfg.tree
        width = 2 + 28 + 7 + self.slots + (3 if cfg.widelec else 1)
        self.row_width = width
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("player", 2, (2,))]
        if self.private:
            pieces.append(("hand", 28, (28,)))
        if self.public:
            pieces += [("to_move", 2, (2,)), ("table", 28, (28,)), ("n", 1, (1,)),
                       ("tile_counts", 2, (2,)), ("points", 2, (2,))]
            if cfg.tree:
                pieces += [("ports", _TREE_PORTS * 7, (_TREE_PORTS, 7)), ("count", 1, (1,))]
            else:
                pieces += [("ends", 14, (2, 7)), ("end_tiles", 56, (2, 28))]
                if not cfg.widelec:
                    pieces.append(("count", 1, (1,)))
            if cfg.widelec:
                pieces += [("boneyard", 1, (1,)), ("pending", 1, (1,)), ("drawing", 1, (1,))]
            if self.recall:
                rows = cfg.history_rows
                pieces.append(("history", rows * width, (rows, width)))
        total = sum(size for _, size, _ in pieces)
        self.tensor = np.zeros(total, np.float32)
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        index = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[index:index + size].reshape(shape)
            index += size

    def set_from(self, state: DominoState, player: int) -> None:
        """Fill ``tensor`` (and its named views in ``dict``) with ``player``'s observation."""
        self.tensor.fill(0)
        d = self.dict
        d["player"][player] = 1
        core = state._core
        hand = core.hand
        if hand is None:  # dealing
            if self.private:
                for i in core.dealt_to(player):
                    d["hand"][i] = 1
            if self.public:
                d["tile_counts"][0] = len(core.dealt_to(0))
                d["tile_counts"][1] = len(core.dealt_to(1))
            return
        view = view_of(hand, player)
        if self.private:
            for t in view.hand:
                d["hand"][t.index] = 1
        if not self.public:
            return
        if view.to_move is not None and not core.drawing:
            d["to_move"][view.to_move] = 1
        for p in view.table:
            d["table"][p.tile.index] = 1
        d["n"][0] = view.n
        d["tile_counts"][player] = len(view.hand)
        d["tile_counts"][1 - player] = view.opponent_tiles
        d["points"][0], d["points"][1] = view.hand_points
        if self.cfg.tree:
            ports = d["ports"]
            for port, values in view.free_ports:
                for v in values:
                    ports[port.index - 2, v] = 1  # tree ports are numbered from 2 (after L, R)
        else:
            ends = d["ends"]
            end_tiles = d["end_tiles"]
            for port, values in view.free_ports:  # L, R (none before the lead)
                e = port.index
                for v in values:
                    ends[e, v] = 1
                # the tile at this end: the last laid there, or the lead
                end = next(mv for mv in reversed(view.table)
                           if mv.port is None or mv.port.index == e)
                end_tiles[e, end.tile.index] = 1
        if view.count is not None:
            d["count"][0] = view.count
        if view.boneyard is not None:
            d["boneyard"][0] = view.boneyard
            d["pending"][0] = float(view.pending_seat is not None)
            d["drawing"][0] = float(core.drawing)
        if self.recall:
            self._history(core, player)

    def _history(self, core: _Core, player: int) -> None:
        rows = self.dict["history"]
        cd = self.cfg.codec
        slots = self.slots
        extra = 2 + 28 + 7 + slots
        hand = core.hand
        assert hand is not None
        for r, (seat, action, drawn) in enumerate(core.record):
            row = rows[r]
            row[seat] = 1
            if action >= cd.num_plays:
                row[extra + action - cd.num_plays] = 1
                if drawn >= 0 and seat == player and self.private:
                    row[2 + drawn] = 1
                continue
            mv = hand.moves[r][1]
            assert isinstance(mv, Play)
            row[2 + mv.tile.index] = 1
            row[30 + mv.inner] = 1
            row[37 + action % slots] = 1
            if mv.luzak:
                row[extra] = 1

    def string_from(self, state: DominoState, player: int) -> str:
        """``player``'s observation (or information state) as text."""
        core = state._core
        hand = core.hand
        parts = [f"p{player}"]
        if hand is None:
            if self.private:
                own = sorted(core.dealt_to(player))
                parts.append("hand:" + "".join(str(TILES[i]) for i in own))
            if self.public:
                parts.append(f"dealing:{len(core.dealt_to(0))}:{len(core.dealt_to(1))}")
            return " ".join(parts)
        view = view_of(hand, player)
        if self.private:
            parts.append("hand:" + "".join(map(str, view.hand)))
        if not self.public:
            return " ".join(parts)
        mover = "-" if view.to_move is None or core.drawing else str(view.to_move)
        parts.append(f"to_move:{mover}")
        if self.line or not self.recall:
            parts.append("table:" + " ".join(map(str, view.table)))
        tiles = [0, 0]
        tiles[player] = len(view.hand)
        tiles[1 - player] = view.opponent_tiles
        parts.append(f"tiles:{tiles[0]}:{tiles[1]}")
        parts.append(f"points:{view.hand_points[0]}:{view.hand_points[1]}")
        if view.count is not None:
            parts.append(f"count:{view.count}")
        if view.boneyard is not None:
            parts.append(f"boneyard:{view.boneyard}")
            if view.pending_seat is not None:
                parts.append("pending")
            if core.drawing:
                parts.append("drawing")
        if self.recall:
            shown = player if self.private else None
            parts.append("history:" + " ".join(
                _record_text(core, r, shown) for r in range(len(core.record))))
        return " ".join(parts)


_GAME_CLASSES: Final[dict[str, type[DominoGame]]] = {
    "luzak": LuzakGame, "luzak-line": LuzakLineGame, "widelec": WidelecGame,
}
_TYPES: Final[dict[str, Any]] = {name: _game_type(get_game(name)) for name in _GAME_CLASSES}
_INFOS: Final[dict[str, Any]] = {name: _game_info(get_game(name)) for name in _GAME_CLASSES}


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for name, cls in _GAME_CLASSES.items():
        if SHORT_NAMES[name] not in registered:
            pyspiel.register_game(_TYPES[name], cls)


_register()

__all__ = ["DominoGame", "DominoObserver", "DominoState", "GameConfig", "LuzakGame",
           "LuzakLineGame", "MATCH_OPTIONS", "SHORT_NAMES", "WidelecGame", "max_game_length",
           "parameters"]
