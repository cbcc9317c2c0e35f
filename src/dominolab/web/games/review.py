"""The review of a seat's play in the browser (docs/web.md, "Review"): after each hand and
after the match, the seat's moves that lost the most win chance by the expert's judgement
(with how sure that is, as the terminal's review says it), the better move on the table as
it stood, and the seat's win chance over the match.

It is the terminal's review (:func:`dominolab.players.hints.assess` and
:func:`~dominolab.players.hints.costliest`), worked out in the compute pool
(:func:`dominolab.web.games.compute.review_hands`) one finished hand at a time. A finished
hand never changes, so each hand's review is kept, by game, seat and hand: the review after
the match's last hand only works out that hand when the earlier ones were asked for as they
ended. Never for a rated match still going on (it would be the expert's advice), and while
a match goes on only for the seat's own token; a finished match's review is anyone's."""

from __future__ import annotations

import asyncio
import collections
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import Match, Move, Play, View
from dominolab.players.base import Budget
from dominolab.players.hints import (
    REVIEW_BUDGET,
    Review,
    costliest,
    immediate_points,
    move_text,
    win_chance,
)
from dominolab.web.errors import ApiError, take
from dominolab.web.games.compute import ComputePool, PoolBusy, review_hands
from dominolab.web.games.layout import TableLayout
from dominolab.web.games.live import LiveGame
from dominolab.web.limits import Limiter

#: how many of the costliest moves a hand's review, and the match's, lists (as the terminal)
COSTLY: Final = 3
#: hands' reviews kept in memory (game, seat, hand), the oldest forgotten first
KEPT: Final = 4000


@dataclass(frozen=True, slots=True)
class Decision:
    """One choice of the seat: the hand's number, the step's place in the hand (the table
    before it is the replay's frame ``frame``), the view then and the move chosen."""

    hand: int
    step: int
    frame: int
    view: View
    move: Move


def decisions(start: Match, played: Match, seat: int) -> list[list[Decision]]:
    """The choices ``seat`` made in ``played``'s finished hands, by hand: ``start`` is the
    same match at its start (it is played through; pass a fresh one). A replay frame is
    shown at each hand's start and after every move (:func:`payload.replay_frames`)."""
    hands: list[list[Decision]] = []
    frame = 0
    finished = len(played.steps) if played.is_over else len(played.steps) - 1
    for number, steps in enumerate(played.steps[:finished], start=1):
        mine: list[Decision] = []
        for i, step in enumerate(steps):
            if start.to_move == seat:
                mine.append(Decision(number, i, frame + i, start.view(seat), step.move))
            start.apply(step.move)
        hands.append(mine)
        frame += len(steps) + 1
    return hands


class Reviewer:
    """Works out and keeps the reviews of every game of one server."""

    def __init__(self, pool: ComputePool, limit: Limiter,
                 budget: Budget | None = None) -> None:
        self.pool = pool
        #: the rate of reviews worked out per client (one kept already is free)
        self.limit = limit
        self.budget = budget or REVIEW_BUDGET
        self._kept: collections.OrderedDict[tuple[str, int, int], list[Review | None]] = \
            collections.OrderedDict()
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        #: hands worked out in the pool so far (the rest came from what was kept)
        self.worked_out = 0

    async def review(self, live: LiveGame, seat: int, start: Match, client: str,
                     width: str = "wide") -> dict[str, Any]:
        """``seat``'s review of ``live``'s finished hands (docs/web.md, REVIEW). The caller
        has checked who may ask (:func:`may_review`). 429 when the client asked for too
        many, or has too much waiting in the pool."""
        over = live.over
        version = live.version
        hands = decisions(start, live.match, seat)
        key = (live.id, seat)
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                missing = [h for h in range(len(hands)) if (live.id, seat, h) not in self._kept]
                if missing:
                    await take(self.limit, client, "reviews")
                    try:
                        done = await self.pool.run(
                            client, review_hands,
                            [[(d.view, d.move) for d in hands[h]] for h in missing],
                            self.budget, live.row.seed)
                    except PoolBusy as exc:
                        raise ApiError(429, "too much is being worked out for your address; "
                                            "try again in a moment",
                                       retry_after=exc.retry_after, kind="compute") from None
                    self.worked_out += len(missing)
                    for h, assessed in zip(missing, done, strict=True):
                        self._keep((live.id, seat, h), assessed)
                assessed_all = [self._kept[(live.id, seat, h)] for h in range(len(hands))]
        finally:
            if not lock.locked():  # a request that comes meanwhile makes a new one
                self._locks.pop(key, None)
        return self._json(live, seat, version, over, hands, assessed_all, width)

    def _keep(self, key: tuple[str, int, int], assessed: list[Review | None]) -> None:
        self._kept[key] = assessed
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)

    def _json(self, live: LiveGame, seat: int, version: int, over: bool,
              hands: list[list[Decision]], assessed: list[list[Review | None]],
              width: str) -> dict[str, Any]:
        curve: list[dict[str, Any]] = []
        out_hands: list[dict[str, Any]] = []
        every: list[tuple[Decision, Review]] = []
        for chosen, reviews in zip(hands, assessed, strict=True):
            pairs = [(d, r) for d, r in zip(chosen, reviews, strict=True) if r is not None]
            by_index = {r.index: d for d, r in pairs}
            curve += [{"hand": d.hand, "n": d.view.n + 1, "win": round(win_chance(r.chosen), 4)}
                      for d, r in pairs]
            every += pairs
            out_hands.append({
                "hand": len(out_hands) + 1, "choices": len(pairs),
                "costly": [self._item(live, by_index[r.index], r, width)
                           for r in costliest((r for _, r in pairs), COSTLY)]})
        # the match's costliest: across every hand (index: its place in the whole match)
        ranked = [Review(i, r.view, r.chosen, r.best, r.spread, r.focused)
                  for i, (_, r) in enumerate(every)]
        match_costly = [self._item(live, every[r.index][0], every[r.index][1], width)
                        for r in costliest(ranked, COSTLY)]
        return {"version": version, "seat": seat, "over": over, "hands": out_hands,
                "costly": match_costly, "curve": curve}

    @staticmethod
    def _item(live: LiveGame, decision: Decision, r: Review, width: str) -> dict[str, Any]:
        """One costly move, with the table as it stood and where the better move goes."""
        match = live.match
        layout = TableLayout(match.spec, match.options, width)
        for step in match.steps[decision.hand - 1][:decision.step]:
            if isinstance(step.move, Play):
                layout.place(step.move)
        best = r.best.move
        preview = layout.preview(best).to_json() if isinstance(best, Play) else None
        mine, theirs = immediate_points(r.view, best)
        return {
            "hand": decision.hand, "n": r.view.n + 1, "frame": decision.frame,
            "move": str(r.chosen.move), "better": move_text(r.view, best),
            "better_move": str(best), "win": round(win_chance(r.chosen), 4),
            "better_win": round(win_chance(r.best), 4), "win_loss": round(r.win_loss, 4),
            "points_loss": round(r.points_loss, 2), "spread": round(r.spread, 4),
            "sure": r.sure, "certainty": r.certainty(), "summary": r.summary(),
            "focused": None if r.focused is None else str(r.focused),
            "better_points": [mine, theirs],
            "hand_tiles": [t.digits for t in r.view.hand],
            "count": r.view.count if match.spec.has_count else None,
            "table": layout.to_json(), "preview": preview,
        }


def may_review(live: LiveGame, seat: int, token_seat: int | None) -> None:
    """Who may ask for ``seat``'s review: anyone once the match is over; while it goes on,
    only ``seat``'s own token (``token_seat``), and never where hints are refused: a rated
    match or one against another player from the lobby (the expert's advice would be
    playing)."""
    if live.over:
        return
    if live.row.rated:
        raise ApiError(403, "there is no review during a rated match: it would be the "
                            "expert's advice; it is there once the match is over")
    if live.row.mode == "lobby":
        raise ApiError(403, "there is no review during a match against another player from "
                            "the lobby: it is there once the match is over")
    if token_seat is None:
        raise ApiError(401, "this needs the seat's token (Authorization: Bearer TOKEN) until "
                            "the match is over")
    if token_seat != seat:
        raise ApiError(403, "until the match is over, a seat's review is that seat's only")


__all__ = ["COSTLY", "Decision", "Reviewer", "decisions", "may_review"]
