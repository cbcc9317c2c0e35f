"""The expert variants of docs/strength.md's experiments, as duplicate runs against a
baseline: ``python docs/strength/experiments.py VARIANT[:BUDGET] B GAME PAIRS SEED [WORKERS]``
(2 workers unless given),
e.g. ``python docs/strength/experiments.py ismcts-expected-c0.4-w0.3:4000w pimc luzak 200 1000``.

A variant is the expert (:class:`~dominolab.players.ExpertPlayer`) with its three search
choices set: ``ismcts-PLAYOUT-cC-wW`` (PLAYOUT ``immediate`` or ``expected``, UCB's
exploration constant C, the hand margin's share W of the value), or PIMC with the exact
sampler, ``pimc-inferred`` (point margin) and ``pimc-inferred-match`` (the expert's value,
W 0.3), or the expert weighing its worlds by a model of the opponent's choices,
``expert-choice-sS-nN[-fF][-immediate]`` (:class:`~dominolab.players.beliefs.ChoiceModel`
of sharpness S over N sampled worlds with a floor F of uniform choice, scoring by the
expected-answer greedy or the immediate margin), or the expert weighing them world by world
by a searching model of the opponent, ``expert-searching[-nN][-kK][-wW][-tT][-fF][-bB][-fresh]``
(:class:`~dominolab.players.beliefs.SearchingModel`, N fresh worlds a move and at most K
kept, W deals in each small PIMC, softmax temperature T, floor F, at most B of the
opponent's choices valued a move; each player its own model, which carries its worlds
through a hand, or with ``-fresh`` starts afresh at every move, as the web app's computer,
made anew for each move, would), or
``expert-reads-searching``, the expert as it was before it asked which kind of player its
opponent is (the searching model alone, on the expert's own random stream, so that it
repeats the records of that expert), or ``expert-reads-kind``, the expert as it was before
it followed an opponent read as greedy into the greedy's replies in its tree, and
``expert-exploits``, the expert that does (both on the expert's own stream, and neither
following the greedy unread), or ``expert-greedy-nN-fF``, ``expert-exploits`` whose greedy
model weighs N worlds with a floor F (:class:`~dominolab.players.beliefs.GreedyModel`; the
expert's: 256, 0.1; on the expert's own stream), or ``expert-followsG``, today's expert
whose opponent makes the greedy's move in the tree at least a share G of the time
(:attr:`~dominolab.players.search.ExpertPlayer.follows_at_least`; the expert's: 0.5;
``expert-follows0`` is ``expert-exploits``), or ``expert-set-cC-wW-fF``, today's expert
with any of its exploration constant C, margin weight W and follows-at-least share F set
(each part optional, on the expert's own stream; ``expert-followsG`` is
``expert-set-fG``), or
``expert-kindP``, today's expert told the odds of its opponent's kind before the hand
starts: the greedy kind's prior P instead of 0.5 in its reading (``reading_model``), and
in its tree the greedy's move at least as often as that prior makes it (``expert-kind0.5``
is today's expert; a measuring stick for carrying the odds from hand to hand), or
``expert-sees-hand``, the expert told the opponent's hand (a measuring stick), or
``expert-reads[-nN-bB[-wW]][-gG-fF]``, today's expert whose searching model weighs N fresh
worlds and values at most B of the opponent's choices a move, W deals each small PIMC (the
expert's: 64, 400, 8), and whose greedy model weighs G worlds with a floor F (the expert's:
256, 0.1), told the greedy kind's prior P as ``expert-kindP`` is (``-kP``; on the expert's
own stream), or
``expert-dmcK``, the expert's iterations spread over K searches, each told one deal of the
opponent's hand drawn from its beliefs (determinized MCTS, on a stream of its own). It prints
the arena's JSON summary (on Ctrl-C, that of the pairs that finished). Each variant draws
its randomness under its own name, so a variant equal to today's expert repeats its own
figures, not ``expert``'s.
"""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any, cast

from dominolab.core import Hand, Move, OptionError, Tile, View
from dominolab.core.worlds import Beliefs, HiddenWorlds
from dominolab.lab.arena import ArenaInterrupted, run_arena_matches
from dominolab.players import PLAYERS, make_player, parse_player_spec
from dominolab.players.base import Budget
from dominolab.players.beliefs import (
    ChoiceModel,
    GreedyModel,
    MixedModel,
    OpponentModel,
    SearchingModel,
    WeighingModel,
)
from dominolab.players.learned import LearnedModel
from dominolab.players.search import ExpertPlayer, MoveValue, PimcPlayer, reading_model

_ISMCTS = re.compile(r"ismcts-(immediate|expected)-c([0-9.]+)-w([0-9.]+)$")
_SEARCHING = re.compile(r"expert-searching(?:-n([0-9]+))?(?:-k([0-9]+))?(?:-w([0-9]+))?"
                        r"(?:-t([0-9.]+))?(?:-f([0-9.]+))?(?:-b([0-9]+))?(-fresh)?$")
_GREEDY = re.compile(r"expert-greedy-n([0-9]+)-f([0-9.]+)$")
_FOLLOWS = re.compile(r"expert-follows([0-9.]+)$")
_SET = re.compile(r"expert-set((?:-[cwf][0-9.]+)+)$")
_SET_KNOBS = {"c": "exploration", "w": "margin_weight", "f": "follows_at_least"}
_DETERMINIZED = re.compile(r"expert-dmc([0-9]+)$")
#: today's expert with its reading changed; ``expert-kindP`` is ``expert-reads-kP``
_READS = re.compile(r"expert-(?:reads(?:-n([0-9]+)-b([0-9]+)(?:-w([0-9]+))?)?"
                    r"(?:-g([0-9]+)-f([0-9.]+))?(?:-k([0-9.]+))?|kind([0-9.]+))$")
_CHOICE = re.compile(r"expert-choice-s([0-9.]+)-n([0-9]+)(?:-f([0-9.]+))?(-immediate)?$")
#: the learned reading (issue 43): WITH greedy, searching or both beside it, or ALONE
_LEARNED = re.compile(r"expert-learned-(alone|greedy|searching|both)(?:-n([0-9]+))?"
                      r"(?:-f([0-9.]+))?$")
_ROOTS = re.compile(r"expert-roots([0-9]+)$")


class _HandSeer(ExpertPlayer):
    """The expert told the opponent's hand (not the boneyard's order): what a perfect model
    of the opponent could be worth at most (a measuring stick, like ``omniscient``)."""

    sees_all = True
    _theirs: tuple[Tile, ...] = ()

    def choose_seeing(self, hand: Hand[Any], view: View, budget: Budget | None = None) -> Move:
        self._theirs = tuple(sorted(hand.hands[1 - view.seat], key=lambda t: t.index))
        return self.choose(view, budget)

    def _reading(self, view: View, deadline: float | None) -> tuple[Beliefs | None, float]:
        return Beliefs((self._theirs,), (1.0,)), 0.0


class _Determinized(ExpertPlayer):
    """The expert's iterations spread over ``deals`` searches, each in one deal of the
    opponent's hand drawn from the expert's beliefs (its reading, or the rules' exact
    posterior where the reading declines) and searched as ``expert-sees-hand`` searches
    the true one; a move's visits summed over the deals choose it (determinized MCTS:
    PIMC whose every deal is searched by the tree, not played out once)."""

    deals = 20
    _fixed: tuple[Tile, ...] | None = None

    def _search_native(self, view: View, budget: Budget | None, true_hand: Any, *,
                       only: Any = None, greedy: float | None = None) -> list[MoveValue]:
        if true_hand is not None or self._fixed is not None:
            return super()._search_native(view, budget, true_hand, only=only, greedy=greedy)
        count, deadline = self._plan(budget)
        beliefs, read = super()._reading(view, deadline)
        hands: list[tuple[Tile, ...]] = []
        if beliefs is None:
            worlds = HiddenWorlds(view)
            for _ in range(self.deals):
                theirs = worlds.sample_hand(self.rng)[0]
                hands.append(tuple(sorted(theirs, key=lambda t: t.index)))
        else:
            hands = self.rng.choices(beliefs.hands, beliefs.weights, k=self.deals)
        each = Budget(worlds=max(1, count // self.deals), seconds=None)
        sums: dict[Move, list[float]] = {}  # visits, then value, margin, chance times them
        for deal in hands:
            self._fixed = deal
            try:
                found = super()._search_native(view, each, None, only=only, greedy=read)
            finally:
                self._fixed = None
            for mv in found:
                row = sums.setdefault(mv.move, [0.0, 0.0, 0.0, 0.0])
                for k, x in enumerate((1.0, mv.value, mv.margin, mv.win_chance or 0.0)):
                    row[k] += x * mv.worlds
        out = [MoveValue(m, v / n, g / n, c / n, int(n)) if n else MoveValue(m, 0, 0, 0, 0)
               for m, (n, v, g, c) in sums.items()]
        return sorted(out, key=lambda v: (-v.worlds, -v.value))

    def _reading(self, view: View, deadline: float | None) -> tuple[Beliefs | None, float]:
        if self._fixed is not None:
            return Beliefs((self._fixed,), (1.0,)), 0.0  # the search is given the read
        return super()._reading(view, deadline)


def _register(name: str) -> None:
    """Make the variant ``name`` a player the arena knows."""
    found = _ISMCTS.match(name)
    attrs: dict[str, object]
    base: type
    if found is not None:
        playout, c, w = found.groups()
        base = ExpertPlayer
        attrs = {"kind": "ismcts-expected" if playout == "expected" else "ismcts",
                 "exploration": float(c), "margin_weight": float(w)}
    elif (found := _CHOICE.match(name)) is not None:
        base = ExpertPlayer
        attrs = {"opponent_model": ChoiceModel(float(found[1]), int(found[2]),
                                             answer=found[4] is None,
                                             floor=float(found[3] or 0.0))}
    elif (found := _SEARCHING.match(name)) is not None:
        samples, keep = int(found[1] or 64), int(found[2] or 128)
        worlds, tau, floor = int(found[3] or 8), float(found[4] or 2), float(found[5] or 0.1)
        work = int(found[6]) if found[6] else None
        carry = not found[7]
        variant = type(f"Variant_{len(PLAYERS)}", (ExpertPlayer,), {"name": name})

        def searching(seed: int) -> ExpertPlayer:
            player: ExpertPlayer = variant(random.Random(f"dominolab/player/{name}/{seed}"))
            player.opponent_model = SearchingModel(samples, max(keep, samples), worlds, tau,
                                                   floor, work, carry=carry)
            return player

        PLAYERS[name] = searching
        return
    elif name == "expert-reads-searching":  # the expert before it asked which kind
        def reads_searching(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            player.opponent_model = SearchingModel(tau=3.0, work=400, carry=False)
            return player

        PLAYERS[name] = reads_searching
        return
    elif name in ("expert-exploits", "expert-reads-kind"):  # following a greedy opponent
        exploits = name == "expert-exploits"                  # into its replies, or not

        def follows(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            player.exploits, player.follows_at_least = exploits, 0.0
            return player

        PLAYERS[name] = follows
        return
    elif (found := _READS.match(name)) is not None:
        # today's expert, its reading resized, or told the odds of the opponent's kind
        samples, work, deals = int(found[1] or 64), int(found[2] or 400), int(found[3] or 8)
        greedy_samples, greedy_floor = int(found[4] or 256), float(found[5] or 0.1)
        prior = found[6] or found[7]
        told = prior is not None
        greedy = float(prior) if told else 0.5
        if not 0.0 < greedy < 1.0:
            raise ValueError(f"{name}: the greedy kind's prior must be between 0 and 1")

        def reads(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            player.opponent_model = model = reading_model(
                greedy, samples=samples, work=work, deals=deals,
                greedy_samples=greedy_samples, greedy_floor=greedy_floor)
            if told:  # in its tree, the greedy's move at least as often as the prior makes it
                share = model.greedy_chance((greedy, 1.0 - greedy))
                player.follows_at_least = max(player.follows_at_least, share)
            return player

        PLAYERS[name] = reads
        return
    elif (found := _GREEDY.match(name)) is not None:  # the expert, its greedy model changed
        samples, floor = int(found[1]), float(found[2])

        def reads_greedy(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            player.opponent_model = MixedModel([
                (0.5, GreedyModel(samples, floor)),
                (0.5, SearchingModel(tau=3.0, work=400, carry=False))])
            player.follows_at_least = 0.0  # as the expert was then
            return player

        PLAYERS[name] = reads_greedy
        return
    elif (found := _FOLLOWS.match(name) or _SET.match(name)) is not None:
        # today's expert with some knobs set (expert-followsG: the follows-at-least share)
        parts = found[1].split("-")[1:] if found.re is _SET else [f"f{found[1]}"]
        knobs = {_SET_KNOBS[part[0]]: float(part[1:]) for part in parts}

        def knobs_set(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            for attr, value in knobs.items():
                setattr(player, attr, value)
            return player

        PLAYERS[name] = knobs_set
        return
    elif (found := _LEARNED.match(name)) is not None:
        # today's expert reading with the learned network (players/learned.py): alone, or
        # beside the greedy model, the searching model or both, even prior odds
        beside, samples, floor = found[1], int(found[2] or 512), float(found[3] or 0.1)

        def learned(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            models: list[WeighingModel] = [LearnedModel(samples, floor)]
            if beside in ("greedy", "both"):
                models.append(GreedyModel(256, 0.1))
            if beside in ("searching", "both"):
                models.append(SearchingModel(64, 128, 8, tau=3.0, work=400, carry=False))
            player.opponent_model = MixedModel([(1.0 / len(models), m) for m in models])
            return player

        PLAYERS[name] = learned
        return
    elif (found := _ROOTS.match(name)) is not None:  # today's expert, root-parallel
        roots = int(found[1])

        def rooted(seed: int) -> ExpertPlayer:
            player = ExpertPlayer(random.Random(f"dominolab/player/expert/{seed}"))
            player.roots = roots
            return player

        PLAYERS[name] = rooted
        return
    elif name == "expert-sees-hand":
        base, attrs = _HandSeer, {}
    elif (found := _DETERMINIZED.match(name)) is not None:
        base, attrs = _Determinized, {"deals": int(found[1])}
    elif name == "pimc-inferred":
        base, attrs = PimcPlayer, {"inference": True}
    elif name == "pimc-inferred-match":
        base = PimcPlayer
        attrs = {"inference": True, "match_aware": True, "margin_weight": 0.3}
    else:
        return
    model = attrs.pop("opponent_model", None)
    cls = type(f"Variant_{len(PLAYERS)}", (base,), {**attrs, "name": name})

    def player(seed: int) -> Any:
        made = cls(random.Random(f"dominolab/player/{name}/{seed}"))
        if isinstance(made, ExpertPlayer):  # its own model, or none (the rules' posterior)
            made.opponent_model = cast("OpponentModel | None", model)
        return made

    PLAYERS[name] = player


def _refused(error: Exception) -> int:
    print(f"experiments.py: {error}; see the usage:\n{__doc__}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    if len(argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        return 2
    a, b, game = argv[:3]
    if not all(text.isascii() and text.isdigit() for text in argv[3:]):
        return _refused(ValueError(f"PAIRS, SEED and WORKERS are whole numbers, not "
                                   f"{' '.join(argv[3:])!r}"))
    numbers = [int(text) for text in argv[3:]]
    try:
        for spec in (a, b):  # every player made once before any play, so a bad one is named
            _register(spec.split(":")[0])
            make_player(parse_player_spec(spec)[0], 0)
    except ValueError as error:  # OptionError too
        return _refused(error)
    workers = numbers[2] if len(numbers) == 3 else 2
    try:
        result = run_arena_matches(game, a, b, numbers[0], numbers[1], workers=workers)
    except ArenaInterrupted as stop:  # Ctrl-C: the pairs that finished, marked interrupted
        print(json.dumps(stop.partial.to_json(), indent=1))
        return 130
    except OptionError as error:  # the game, pairs or workers, refused before any play
        return _refused(error)
    print(json.dumps(result.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
