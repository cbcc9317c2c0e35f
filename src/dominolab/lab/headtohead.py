"""Our expert against OpenSpiel's ISMCTS and MCTS bots (and its random bot, a floor), on
duplicate hands, equal time a move.

Played through our OpenSpiel games (:mod:`dominolab.integrations.openspiel`: one hand per
episode, returns = point margin), the ``openspiel`` extra.

* **Duplicate hands.** ``--hands N`` hands in all: N/2 deals, each played twice with the
  seats swapped (our expert in seat 0, then in seat 1). Deal ``d`` (0-based) uses the seed
  ``S + d``: the deal's chance nodes are driven by a generator seeded from it, so both
  copies get the same tiles, and its opener (the game parameter ``opener``) is ``d % 2``.
  Widelec's boneyard gets a fixed order from the same seed (a random permutation of the
  tiles): each draw's chance node takes the first boneyard tile in that order, so the
  boneyard is one shuffled stack, the k-th draw of the hand takes its k-th tile in both
  copies, and while play matches the same seat draws the same tiles. After play diverges
  the draws still come off the same stack, but a different seat may get them.
* **Our expert** (:class:`~dominolab.players.ExpertPlayer`) plays from its own view: at its
  turns the engine's ``View`` is built from the adapter's hand (``view_of(hand, seat)``)
  and ``choose(view, Budget(seconds=T))``'s move is mapped to its action by the codec.
* **OpenSpiel's bots** get the same wall-clock time a move. Neither takes a time limit, so
  each is subclassed with its search loop (``ISMCTSBot.run_search``,
  ``MCTSBot.mcts_search``) copied unchanged except that it runs simulations until ``T``
  seconds have passed (at least one) instead of ``max_simulations`` of them.

  - ``ismcts``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``, UCT, random rollouts
    (``RandomRolloutEvaluator(n_rollouts=1)``), the most visited move; every simulation
    samples a world through the adapter's ``resample_from_infostate``.
  - ``mcts``: ``open_spiel.python.algorithms.mcts.MCTSBot`` (UCT, random rollouts, the
    solver on) is a perfect-information search: on the true state it would see every
    hidden tile. So before each search it is handed ``state.resample_from_infostate(seat)``
    instead — one world consistent with what it knows (its own tiles, the table, what the
    opponent's moves proved), drawn afresh every move: determinized MCTS, fair play.

  - ``random``: ``open_spiel.python.bots.uniform_random.UniformRandomBot``, a legal action
    uniformly at random, no search: a floor for the other figures (how often the expert
    wins a hand against play that does not think).

  The exploration constant is ``--uct-c`` (default 15: returns are point margins).
* **Forced moves** (one legal action) are played by the runner without asking anyone and
  are not timed (the expert and ISMCTS return at once there; MCTS would search anyway).
* **Chance nodes during play** (Widelec's draws) are played by the runner as above.

Results, from our side, per game and opponent: hands; our hand win rate (a hand won = a
positive point margin, a tie counts half) with its 95% interval over duplicate pairs (a
pair's score is the mean of its two hands), the Wilson interval over hands for reference;
the mean point margin per hand with its 95% interval over pairs; seconds a move (median,
p95) of each side and the bot's simulations a move. The statistics are
:mod:`dominolab.lab.stats`'s; the hands run on the lab's one runner (:mod:`dominolab.lab.pool`).

This module needs OpenSpiel (it imports ``pyspiel`` at once), so :mod:`dominolab.lab` does
not import it. It prints nothing: its command is the ``headtohead`` module of the command
package (``--game GAME --opponent ismcts|mcts|random --hands N --seconds T``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots import uniform_random

from dominolab.core import get_game, view_of
from dominolab.integrations.actions import codec
from dominolab.integrations.openspiel import SHORT_NAMES
from dominolab.lab.pool import run_tasks
from dominolab.lab.stats import (
    Timing,
    by_pair,
    mean,
    mean_interval,
    percentile,
    rounded,
    rounded_interval,
    win_rate,
)
from dominolab.players import Budget, ExpertPlayer

OPPONENTS: Final = ("ismcts", "mcts", "random")
#: UCT exploration constant of the bots: returns are point margins (a few tens)
DEFAULT_UCT_C: Final = 15.0
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)


# -- OpenSpiel's bots, time-limited -------------------------------------------------------------

class RandomBot(uniform_random.UniformRandomBot):  # type: ignore[misc]
    """OpenSpiel's ``UniformRandomBot``: a legal action uniformly at random, no search (a
    floor: how often the expert wins a hand against play that does not think at all)."""

    simulations = 0


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """``ISMCTSBot`` searching for ``seconds`` of wall-clock time a move (at least until the
    root has a visit: two simulations) instead of ``max_simulations`` simulations:
    ``run_search`` is OpenSpiel's, with only the loop changed. ``simulations`` counts the
    last search's simulations."""

    def __init__(self, game: Any, evaluator: Any, uct_c: float, seconds: float,
                 random_state: np.random.RandomState) -> None:
        super().__init__(game, evaluator, uct_c, max_simulations=1, random_state=random_state,
                         final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                         child_selection_policy=ismcts.ChildSelectionPolicy.UCT)
        self.seconds = seconds
        self.simulations = 0

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        deadline = time.perf_counter() + self.seconds
        self.reset()
        legal_actions = state.legal_actions()
        self.simulations = 0
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        root_infostate_key = self.get_state_key(state)
        while True:
            sampled_root_state = self.sample_root_state(state)
            assert root_infostate_key == self.get_state_key(sampled_root_state)
            self.run_simulation(sampled_root_state)
            self.simulations += 1
            # OpenSpiel's first simulation only expands the root: stop once it was visited
            if time.perf_counter() >= deadline and self._root_node.total_visits > 0:
                break
        return list(self.get_final_policy(state, self._root_node))


class TimedMCTSBot(mcts.MCTSBot):  # type: ignore[misc]
    """``MCTSBot`` searching for ``seconds`` a move (at least one simulation), in one world
    resampled from its own information state each move (it never sees the true state):
    ``mcts_search`` is OpenSpiel's, with only the loop changed."""

    def __init__(self, game: Any, evaluator: Any, uct_c: float, seconds: float,
                 random_state: np.random.RandomState,
                 resample: Callable[[Any, int], Any]) -> None:
        super().__init__(game, uct_c, max_simulations=1, evaluator=evaluator, solve=True,
                         random_state=random_state)
        self.seconds = seconds
        self.resample = resample
        self.simulations = 0
        self._started: float | None = None

    def step(self, state: Any) -> int:
        """Search a world resampled from the mover's information state; its best action
        is legal in the true state (legal actions depend only on what the mover sees)."""
        self._started = time.perf_counter()  # the resampling counts in the time
        world = self.resample(state, state.current_player())
        return int(self.step_with_policy(world)[1])

    def mcts_search(self, state: Any) -> Any:
        started = self._started if self._started is not None else time.perf_counter()
        self._started = None
        deadline = started + self.seconds
        root = mcts.SearchNode(None, state.current_player(), 1)
        self.simulations = 0
        while True:
            visit_path, working_state = self._apply_tree_policy(root, state)
            if working_state.is_terminal():
                returns = working_state.returns()
                visit_path[-1].outcome = returns
                solved = self.solve
            else:
                returns = self.evaluator.evaluate(working_state)
                solved = False
            while visit_path:
                decision_node_idx = -1
                while visit_path[decision_node_idx].player == pyspiel.PlayerId.CHANCE:
                    decision_node_idx -= 1
                target_return = returns[visit_path[decision_node_idx].player]
                node = visit_path.pop()
                node.total_reward += target_return
                node.explore_count += 1
                if solved and node.children:
                    player = node.children[0].player
                    if player == pyspiel.PlayerId.CHANCE:
                        outcome = node.children[0].outcome
                        if (outcome is not None
                                and all(np.array_equal(c.outcome, outcome)
                                        for c in node.children)):
                            node.outcome = outcome
                        else:
                            solved = False
                    else:
                        best = None
                        all_solved = True
                        for child in node.children:
                            if child.outcome is None:
                                all_solved = False
                            elif best is None or child.outcome[player] > best.outcome[player]:
                                best = child
                        if (best is not None
                                and (all_solved or best.outcome[player] == self.max_utility)):
                            node.outcome = best.outcome
                        else:
                            solved = False
            self.simulations += 1
            # the first simulation may only expand the root: stop once it has a child
            if root.outcome is not None or (time.perf_counter() >= deadline and root.children):
                break
        return root


def _seed32(*parts: object) -> int:
    """A 31-bit seed (numpy and pyspiel both take it) from a text key."""
    return random.Random("/".join(map(str, ("dominolab/headtohead", *parts)))).getrandbits(31)


def make_bot(opponent: str, game: Any, seconds: float, seed: int,
             uct_c: float = DEFAULT_UCT_C,
             seat: int | None = None) -> TimedISMCTSBot | TimedMCTSBot | RandomBot:
    """OpenSpiel's ``ismcts`` or ``mcts`` bot with random rollouts, ``seconds`` a move, or
    its ``random`` bot (which must be told its ``seat``), every random choice (its worlds
    included) drawn from ``seed``."""
    evaluator = mcts.RandomRolloutEvaluator(
        n_rollouts=1, random_state=np.random.RandomState(_seed32("rollouts", seed)))
    state_rng = np.random.RandomState(_seed32("bot", seed))
    sampler = pyspiel.UniformProbabilitySampler(_seed32("worlds", seed), 0.0, 1.0)

    def resample(state: Any, player: int) -> Any:
        return state.resample_from_infostate(player, sampler)

    if opponent == "ismcts":
        bot = TimedISMCTSBot(game, evaluator, uct_c, seconds, state_rng)
        bot.set_resampler(resample)
        return bot
    if opponent == "mcts":
        return TimedMCTSBot(game, evaluator, uct_c, seconds, state_rng, resample)
    if opponent == "random":
        if seat is None:
            raise ValueError("the random bot must be told its seat (0 or 1)")
        return RandomBot(seat, state_rng)
    raise ValueError(f"no opponent {opponent!r}; the opponents are: {', '.join(OPPONENTS)}")


# -- one hand -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as played. ``pair``: the deal's index (its seed is ``seed + pair``);
    ``our_seat``: the expert's seat; ``margin``: our points minus theirs; ``deal``: the
    tile indices dealt, seat 0's then seat 1's (equal within a pair); ``opener``: the seat
    that led; ``our_seconds``/``their_seconds``: time per chosen (not forced) move;
    ``simulations``: the bot's simulations per chosen move; ``draws``: Widelec tiles
    drawn, in order."""

    pair: int
    deal_seed: int
    our_seat: int
    margin: float
    points: tuple[int, int]
    deal: tuple[int, ...]
    opener: int
    draws: tuple[int, ...]
    our_seconds: tuple[float, ...]
    their_seconds: tuple[float, ...]
    simulations: tuple[int, ...]

    @property
    def score(self) -> float:
        """1 for a hand won, 0.5 tied, 0 lost (by the point margin)."""
        return 1.0 if self.margin > 0 else 0.5 if self.margin == 0 else 0.0


@dataclass(frozen=True, slots=True)
class _Task:
    game: str
    opponent: str
    seconds: float
    uct_c: float
    pair: int
    deal_seed: int
    our_seat: int


def load_game(game: str, opener: int) -> Any:
    """Our OpenSpiel game (default rules) with ``opener`` leading."""
    return pyspiel.load_game(SHORT_NAMES[get_game(game).name], {"opener": opener})


def boneyard_order(deal_seed: int) -> list[int]:
    """Widelec: the order the boneyard is drawn in (a permutation of the 28 tile indices;
    the tiles dealt are skipped)."""
    order = list(range(28))
    random.Random(f"dominolab/headtohead/draws/{deal_seed}").shuffle(order)
    return order


def play_hand(game: str, opponent: str, seconds: float, deal_seed: int, our_seat: int,
              pair: int = 0, uct_c: float = DEFAULT_UCT_C) -> HandRecord:
    """Play one hand of ``game``: our expert in ``our_seat`` against ``opponent``, deal and
    opener from ``deal_seed`` (the opener is ``pair % 2``)."""
    opener = pair % 2
    os_game = load_game(game, opener)
    cd = codec(game)
    deal_rng = random.Random(f"dominolab/headtohead/deal/{deal_seed}")
    order = boneyard_order(deal_seed)
    expert = ExpertPlayer(random.Random(f"dominolab/headtohead/expert/{deal_seed}/{our_seat}"))
    bot = make_bot(opponent, os_game, seconds, _seed32(opponent, deal_seed, our_seat), uct_c,
                   1 - our_seat)
    budget = Budget(seconds=seconds)
    clock = time.perf_counter
    ours: list[float] = []
    theirs: list[float] = []
    sims: list[int] = []
    draws: list[int] = []
    state = os_game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == _CHANCE:
            outcomes = [a for a, _ in state.chance_outcomes()]
            if state.hand is None:  # dealing
                action = outcomes[int(deal_rng.random() * len(outcomes))]
            else:  # a Widelec draw: the next tile of the boneyard's fixed order
                left = set(outcomes)
                action = next(t for t in order if t in left)
                draws.append(action)
            state.apply_action(action)
            continue
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_action(legal[0])
            continue
        start = clock()
        if player == our_seat:
            hand = state.hand
            assert hand is not None
            move = expert.choose(view_of(hand, our_seat), budget)
            action = cd.encode(move)
            ours.append(clock() - start)
        else:
            action = int(bot.step(state))
            theirs.append(clock() - start)
            sims.append(bot.simulations)
        state.apply_action(action)
    hand = state.hand
    assert hand is not None
    returns = state.returns()
    return HandRecord(
        pair=pair, deal_seed=deal_seed, our_seat=our_seat,
        margin=float(returns[our_seat]),
        points=(hand.points[0], hand.points[1]),
        deal=tuple(_dealt(state, hand)), opener=opener, draws=tuple(draws),
        our_seconds=tuple(ours), their_seconds=tuple(theirs), simulations=tuple(sims))


def _dealt(state: Any, hand: Any) -> list[int]:
    """The tiles dealt (seat 0's, then seat 1's, each as dealt): the history's start."""
    return [int(a) for a in state.history()[:2 * get_game(hand.GAME).hand_size]]


def _run_task(task: _Task) -> HandRecord:
    return play_hand(task.game, task.opponent, task.seconds, task.deal_seed, task.our_seat,
                     task.pair, task.uct_c)


# -- the run and its statistics -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a run, from our side (see the module's docstring)."""

    pairs: int
    hands: int
    wins: int
    ties: int
    losses: int
    win_rate: float
    win_rate_ci95: tuple[float, float] | None
    win_rate_wilson95: tuple[float, float] | None
    margin_per_hand: float
    margin_ci95: tuple[float, float] | None
    our_timing: Timing
    their_timing: Timing
    simulations_median: float
    simulations_per_second: float


def summarise(records: Sequence[HandRecord]) -> Summary:
    """The figures of hand records; pairs (by ``pair``) are the unit of every interval."""
    pairs = by_pair(records)
    scores = [r.score for r in records]
    rate, rate_ci, rate_wilson = win_rate(records, pairs)
    pair_margins = [mean([r.margin for r in recs]) for recs in pairs]
    their = [s for r in records for s in r.their_seconds]
    sims = [float(n) for r in records for n in r.simulations]
    return Summary(
        pairs=len(pairs),
        hands=len(records),
        wins=sum(1 for s in scores if s == 1),
        ties=sum(1 for s in scores if s == 0.5),
        losses=sum(1 for s in scores if s == 0),
        win_rate=rate,
        win_rate_ci95=rate_ci,
        win_rate_wilson95=rate_wilson,
        margin_per_hand=mean([r.margin for r in records]),
        margin_ci95=mean_interval(pair_margins),
        our_timing=Timing.of([s for r in records for s in r.our_seconds]),
        their_timing=Timing.of(their),
        simulations_median=percentile(sims, 50),
        simulations_per_second=math.fsum(sims) / math.fsum(their) if their else math.nan,
    )


@dataclass(frozen=True, slots=True)
class HeadToHeadResult:
    """A run's setup, its hand records (ordered by pair, then our seat) and summary."""

    game: str
    opponent: str
    hands_requested: int
    seconds_per_move: float
    seed: int
    uct_c: float
    workers: int
    records: tuple[HandRecord, ...]
    summary: Summary
    seconds: float

    def to_json(self, with_hands: bool = False) -> dict[str, Any]:
        s = self.summary
        out: dict[str, Any] = {
            "game": self.game,
            "opponent": self.opponent,
            "seconds_per_move": self.seconds_per_move,
            "seed": self.seed,
            "uct_c": self.uct_c,
            "workers": self.workers,
            "pairs": s.pairs,
            "hands": s.hands,
            "wins": s.wins,
            "ties": s.ties,
            "losses": s.losses,
            "win_rate": rounded(s.win_rate),
            "win_rate_ci95": rounded_interval(s.win_rate_ci95),
            "win_rate_wilson95": rounded_interval(s.win_rate_wilson95),
            "margin_per_hand": rounded(s.margin_per_hand),
            "margin_ci95": rounded_interval(s.margin_ci95),
            "seconds_per_move_taken": {"ours": _timing(s.our_timing),
                                       "theirs": _timing(s.their_timing)},
            "bot_simulations_per_move_median": rounded(s.simulations_median),
            "bot_simulations_per_second": rounded(s.simulations_per_second),
            "seconds": round(self.seconds, 3),
        }
        if with_hands:
            out["records"] = [asdict(r) for r in self.records]
        return out


def _timing(t: Timing) -> dict[str, Any]:
    return {"median": rounded(t.median), "p95": rounded(t.p95), "max": rounded(t.max),
            "moves": t.moves}


def run(game: str, opponent: str, hands: int, seconds: float, seed: int = 1,
        workers: int = 1, uct_c: float = DEFAULT_UCT_C,
        progress: Callable[[int, int], None] | None = None) -> HeadToHeadResult:
    """Play ``hands`` hands (``hands // 2`` duplicate pairs) of ``game`` between our expert
    and ``opponent``, ``seconds`` a move each, in ``workers`` processes. The records come
    back ordered by pair and our seat whatever the number of workers."""
    name = get_game(game).name
    if opponent not in OPPONENTS:
        raise ValueError(f"no opponent {opponent!r}; the opponents are: {', '.join(OPPONENTS)}")
    if hands < 2 or hands % 2:
        raise ValueError(f"hands must be even and at least 2 (pairs of hands), not {hands}")
    if not seconds > 0:
        raise ValueError(f"seconds must be positive, not {seconds}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    tasks = [_Task(name, opponent, seconds, uct_c, d, seed + d, our_seat)
             for d in range(hands // 2) for our_seat in (0, 1)]
    done: list[HandRecord] = []
    start = time.perf_counter()
    total = len(tasks)
    workers = min(workers, total)

    def take(record: HandRecord) -> None:
        done.append(record)
        if progress is not None:
            progress(len(done), total)

    run_tasks(_run_task, tasks, take, workers=workers)
    records = tuple(sorted(done, key=lambda r: (r.pair, r.our_seat)))
    return HeadToHeadResult(name, opponent, hands, seconds, seed, uct_c, workers, records,
                            summarise(records), time.perf_counter() - start)


__all__ = ["DEFAULT_UCT_C", "HandRecord", "HeadToHeadResult", "OPPONENTS", "Summary",
           "TimedISMCTSBot", "TimedMCTSBot", "boneyard_order", "load_game", "make_bot",
           "play_hand", "run", "summarise"]
