"""``dominolab play``: a whole match against the computer, in plain text (ANSI colour when
the output is a terminal). You see only what your seat may see; the record is saved when the
match ends, on ``quit``, at end of input or on Ctrl-C.

``hint`` at the prompt shows the expert's best moves; after each hand a short review shows
your moves that lost the most expected value. The environment variable
``DOMINOLAB_HINT_BUDGET`` (a budget such as ``30w`` or ``0.5s``) sets how long the hints
and each position of the review may think (the tests use a small one to stay fast)."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dominolab.cli.inputs import check_player_text
from dominolab.core import (
    AmbiguousMoveError,
    DominoError,
    Draw,
    GameSpec,
    HandResult,
    Keep,
    Match,
    Move,
    OptionError,
    Pass,
    Play,
    Step,
    View,
    get_game,
    match_record,
    quartet_text,
    quartet_worth,
    resolve_move,
)
from dominolab.core.errors import shown
from dominolab.players import LEVELS, Budget, Player, hints, make_player, parse_player_spec
from dominolab.text import Style, describe_move, draw_table, explain_step, line_layout

#: more legal moves than this are listed in columns, without descriptions
LONG_LIST = 16
#: a number typed at the prompt longer than this is no list number (lists are short)
LIST_DIGITS = 4
QUIT_WORDS = {"quit", "q", "exit"}
HELP_WORDS = {"help", "h", "?"}
SHOW_WORDS = {"show", "table", "s"}
HINT_WORDS = {"hint", "hints"}
#: how many moves a hint shows, and how many costly moves a review lists
HINT_MOVES = 3
REVIEW_MOVES = 3
#: the environment variable that sets the budget of hints and reviews (e.g. ``30w``)
HINT_BUDGET_ENV = "DOMINOLAB_HINT_BUDGET"


def use_color(no_color: bool, stream: Any = None) -> bool:
    """Colour only on a terminal, and never with --no-color or a non-empty NO_COLOR."""
    stream = sys.stdout if stream is None else stream
    if no_color or os.environ.get("NO_COLOR"):
        return False
    isatty: Callable[[], bool] | None = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def default_record_path(game: str, seed: int) -> Path:
    return Path(f"dominolab-{game}-{seed}.record.json")


class _Quit(Exception):
    """The player asked to stop (quit or end of input)."""


class Thinking:
    """Shows ``text`` on a terminal while slow work runs (only if it takes longer than
    ``after`` seconds), then wipes it, so fast moves leave no trace."""

    def __init__(self, text: str, after: float = 0.3, stream: Any = None) -> None:
        self.text = text
        self.after = after
        self.stream = sys.stdout if stream is None else stream
        self.shown = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def _show(self) -> None:
        with self._lock:
            self.stream.write(self.text)
            self.stream.flush()
            self.shown = True

    def __enter__(self) -> Thinking:
        isatty: Callable[[], bool] | None = getattr(self.stream, "isatty", None)
        if isatty is not None and isatty():
            if self.after <= 0:
                self._show()
            else:
                self._timer = threading.Timer(self.after, self._show)
                self._timer.daemon = True
                self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()
        with self._lock:
            if self.shown:
                visible = len(re.sub(r"\x1b\[[0-9;]*m", "", self.text))
                self.stream.write("\r" + " " * visible + "\r")
                self.stream.flush()


class PlayScreen:
    """What ``dominolab play`` prints: the table and your moves, each move made, the end of
    a hand and of the match, and the help, for the player in ``seat``."""

    def __init__(self, spec: GameSpec, match: Match, seat: int, color: bool,
                 write: Callable[[str], None]) -> None:
        self.spec = spec
        self.match = match
        self.me = seat
        self.cpu = 1 - seat
        self.st = Style(color)
        self._write = write
        self.width = min(shutil.get_terminal_size((80, 24)).columns, 100)

    def write(self, text: str = "", style: str | None = None) -> None:
        """Print a line; plain text is wrapped to the terminal, then given ``style``."""
        if "\x1b" in text or len(text) < self.width:
            lines = [text]
        else:
            indent = " " * (len(text) - len(text.lstrip()))
            lines = textwrap.wrap(text, self.width - 1, subsequent_indent=indent + "  ",
                                  break_on_hyphens=False)
        for line in lines:
            self._write(self.st(line, style) if style else line)

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.st("you", "bold-green") if seat == self.me \
            else self.st("computer", "bold-red")

    def pair(self, points: Sequence[int]) -> str:
        return f"you {points[self.me]}, computer {points[self.cpu]}"

    def hand_header(self) -> None:
        match = self.match
        opener = match.hand.opener
        title = f" Hand {match.hand_number}: " + ("you open" if opener == self.me
                                                   else "the computer opens") + " "
        side = max(3, (min(self.width, 78) - len(title)) // 2)
        self.write("")
        self.write(self.st("=" * side, "dim") + self.st(title, "bold") + self.st("=" * side, "dim"))

    def prompt(self, legal: Sequence[Move]) -> str:
        numbers = "1" if len(legal) == 1 else f"1-{len(legal)}"
        return self.st("Your move", "bold-green") + f" [{numbers}, a move, hint, help, quit]: "

    def write_item(self, head: str, body: str, style: str = "bold") -> None:
        """``head`` then ``body`` (its first word in ``style``), wrapped to the terminal
        under the body's start."""
        first = body.split(" ", 1)[0]
        lines = textwrap.wrap(head + body, max(40, self.width - 1),
                              subsequent_indent=" " * len(head) + "   ",
                              break_on_hyphens=False)
        for i, line in enumerate(lines):
            if i == 0:
                line = head + self.st(first, style) + line[len(head) + len(first):]
            self._write(line)

    def why(self, exc: DominoError, legal: Sequence[Move]) -> str:
        if isinstance(exc, AmbiguousMoveError):
            choices = ", ".join(f"{legal.index(m) + 1}) {m}" for m in exc.choices
                                if m in legal)
            return f"{str(exc).split(';')[0]}; pick one: {choices}"
        text = str(exc)
        cut = text.find(" Position: ")
        return text[:cut] if cut >= 0 else text

    def show(self, view: View) -> None:
        """Everything you may see before your move."""
        st, w = self.st, self.write
        options = self.match.options
        w("")
        w(st(f"--- Hand {view.hand_number} · tile {view.n + 1} to lay · "
             f"{self.pair(view.totals)} · target {options.target} ---", "bold"))
        if view.n:
            extra = f", count {view.count}" if view.count is not None else ""
            w(f"Table ({view.n} tile{'s' if view.n != 1 else ''}{extra}):")
        else:
            w("Table:")
        for line in draw_table(self.spec, options, view.table, color=st.color,
                               width=self.width - 4):
            w(line)
        if view.count is not None:
            n = view.n + 1
            w(f"Next tile is N={n}: it scores if the count is then divisible by {n}.")
        elif view.n >= 2:
            tiles = line_layout(view.table)[0]
            w(f"End tiles: {tiles[0][0]} (left) and {tiles[-1][0]} (right).")
        facts = [f"Computer holds {view.opponent_tiles} tile"
                 f"{'s' if view.opponent_tiles != 1 else ''}."]
        if view.boneyard is not None:
            facts.append(f"Boneyard: {view.boneyard} tile{'s' if view.boneyard != 1 else ''}.")
        w("  ".join(facts))
        w("Hand: " + " ".join(st.tile(str(t)) for t in view.hand))
        legal = view.legal_moves
        if view.pending is not None:
            w(st(f"You drew {view.pending}: it fits, so play it"
                 + (" (or keep it)." if any(isinstance(m, Keep) for m in legal) else "."),
                 "bold"))
        if any(isinstance(m, Play) and m.luzak for m in legal):
            tree = self.spec.table == "tree"
            where = "a free port" if tree else "either end"
            laid = ("any tile on any free port, you choose its outer half" if tree
                    else "any tile across either end")
            w(f"No tile of yours fits {where}: you must lay a LUZAK (" + laid + (
                "; the computer scores its pips)." if self.spec.luzak_pips
                else "; if the count is then divisible by N, the computer scores it)."),
              "yellow")
        self.list_moves(legal, view)

    def list_moves(self, legal: Sequence[Move], view: View) -> None:
        st = self.st
        ports = view.port_values
        self.write("Your moves:")
        if len(legal) <= LONG_LIST:
            for i, move in enumerate(legal, 1):
                luzak = isinstance(move, Play) and move.luzak
                self.write(f"  {i:>2}) " + st(f"{move!s:<9}", "bold-yellow" if luzak else "bold")
                           + f" {describe_move(move, ports)}")
            return
        cells = [f"{i:>3}) {move!s:<9}" for i, move in enumerate(legal, 1)]
        per_row = max(1, (self.width - 3) // (len(cells[0]) + 1))
        for start in range(0, len(cells), per_row):
            self.write("  " + " ".join(cells[start:start + per_row]))

    def help(self) -> None:
        w = self.write
        w("")
        w("Answer with the number of a move in the list, or type the move:")
        spec = self.spec
        tree = spec.table == "tree"
        if tree:
            w("  54@1e   lay [5|4] with its 5 against port 1e (its 4 becomes the open end)")
            if spec.luzaks:
                w("  11@2e*  a luzak (the * marks it): the first digit lies against the port")
        else:
            w("  54@R    lay [5|4] with its 5 against the right end (L is the left end)")
            if spec.luzaks:
                w("  51@L*   a luzak across the left end (the * marks it)")
        w("  54      just the tile, when it fits only one way")
        if spec.has_boneyard:
            w("  draw, pass, keep   when those are the moves")
        if tree:
            w("Ports are named by tile number and side: e continues the line, w is the")
            w("opening tile's other end, n and s are a spinner's short ends.")
        if spec.scoring == "count":
            if tree:
                w("After tile N is laid, the table count scores if it is divisible by N.")
            else:
                w("After tile N is laid, the count (the two ends) scores if divisible by N;")
            if spec.luzaks and spec.luzak_pips:
                w("With no normal play you must lay a luzak; the opponent scores its pips.")
            elif spec.luzaks:
                w("a luzak's count goes to the opponent.")
        else:
            w("If the two end tiles form a quartet (four consecutive digits of the cycle")
            w("0123456012...; a double counts twice), the layer scores their pips.")
        if spec.out_bonus:
            w("Going out wins the hand and the quartets in the opponent's tiles.")
        w("A number that could also be a tile (like 54) is read as a list number when the")
        w("list is that long; write the tile as 5-4 to mean the tile.")
        w("Other commands: hint (the expert's three best moves, with their chance to win the")
        w("match and the expected points to the end of the hand), show (the table again),")
        w("help, quit (stop and save the record).")
        w("After each hand, a short review lists your moves that cost the most against the")
        w("expert's choice (Ctrl-C while it is computed skips it).")

    def report(self, step: Step) -> None:
        """One line after every move: who, the move, and the reason for the points."""
        st = self.st
        mine = step.seat == self.me
        names = ("you", "the computer") if self.me == 0 else ("the computer", "you")
        reason = explain_step(self.spec, step, show_drawn=mine, names=names)
        if step.points[0] or step.points[1]:
            reason = st(reason, "bold")
        who = st("you     ", "green") if mine else st("computer", "red")
        luzak = isinstance(step.move, Play) and step.move.luzak
        self.write(f"  {who} {st(f'{step.move!s:<9}', 'bold-yellow' if luzak else 'bold')} "
                   f"{reason}")

    def hand_summary(self, number: int, result: HandResult) -> None:
        st, w = self.st, self.write
        w("")
        if result.end == "tiles":
            how = f"{self.spec.tiles_per_hand} tiles are on the table"
        elif result.end == "domino":
            how = f"{self.who(result.winner)} went out (domino!)"
        elif result.end == "block":
            how = "blocked (both passed)" + (
                f"; {self.who(result.winner)} {'have' if result.winner == self.me else 'has'} "
                f"fewer pips" if result.winner is not None else "; equal pips, no winner")
        else:
            how = "the target is reached, the game ends at once"
        w(st(f"Hand {number} over: ", "bold") + how + ".")
        hand = self.match.hands[number - 1]
        if result.end == "tiles":
            w("The table at the end:")
            for line in draw_table(self.spec, self.match.options, hand.table_placements,
                                   color=st.color, width=self.width - 4):
                w(line)
        if result.bonus and result.winner is not None:
            edge = bool(getattr(self.match.options, "edge_double", True))
            pairs = ", ".join(
                f"{a}+{b} ({quartet_text(a, b, edge)}: {quartet_worth(a, b, edge)})"
                for a, b in result.bonus_quartets)
            loser = "the computer's" if result.winner == self.me else "your"
            w(f"Bonus for {self.who(result.winner)}: quartets in {loser} tiles: {pairs} "
              f"= {result.bonus}.")
        elif result.end in ("domino", "block") and result.winner is not None:
            w("No quartets in the loser's tiles: no bonus.")
        if result.pips_left is not None:
            w(f"Pips left: {self.pair(result.pips_left)}.")
        w(f"Hand points: {self.pair(result.points)}.   "
          + st(f"Totals: {self.pair(self.match.totals)}", "bold")
          + f" (target {self.match.options.target}).")

    def match_summary(self) -> None:
        result = self.match.result
        assert result is not None
        st = self.st
        totals = result.totals
        if result.winner is None:
            verdict = st("a draw", "bold")
        elif result.winner == self.me:
            verdict = st("you win", "bold-green")
        else:
            verdict = st("the computer wins", "bold-red")
        how = " at once" if result.end == "at-once" else ""
        self.write("")
        self.write(st("Match over", "bold") + f" after {result.hands} hand"
                   f"{'s' if result.hands != 1 else ''}: {verdict}{how}, "
                   f"{totals[self.me]} to {totals[self.cpu]}.")


class TerminalGame:
    """One match between you (``seat``) and a computer player, on a text terminal: the turns,
    reading your moves, hints and reviews, and the record; :class:`PlayScreen` prints."""

    def __init__(self, spec: GameSpec, match: Match, seat: int, computer: Player,
                 save_path: Path, color: bool,
                 read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print, *,
                 budget: Budget | None = None, label: str | None = None,
                 review: bool = True, hint_budget: Budget | None = None,
                 pause: bool | None = None) -> None:
        self.spec = spec
        self.game = spec.name
        self.match = match
        self.me = seat
        self.cpu = 1 - seat
        self.computer = computer
        #: the computer's budget per move (None: its own default)
        self.budget = budget
        #: how the opponent is named to you, e.g. "hard (expert)"
        self.label = label or computer.name
        self.review_hands = review
        #: the budget of a hint and of each reviewed position (None: the hints' defaults)
        self.hint_budget = hint_budget
        #: wait for Enter after a hand's review (default: when the input is a terminal)
        self.pause = sys.stdin.isatty() if pause is None else pause
        #: your decisions in this hand: the view you had and the move you chose
        self.decisions: list[tuple[View, Move]] = []
        self.save_path = save_path
        self.read = read
        #: where everything is printed
        self.screen = PlayScreen(spec, match, seat, color, write)
        self.st = self.screen.st
        self.write = self.screen.write
        self.players = ("you", f"computer:{computer.name}") if seat == 0 \
            else (f"computer:{computer.name}", "you")

    # -- the match -----------------------------------------------------------------------------
    def run(self) -> int:
        st = self.st
        match = self.match
        options = match.options
        self.write(st(f"dominolab play: {self.spec.title}", "bold")
                   + f" (docs/rules.md section {self.spec.rules_section})")
        self.write(f"Seed {match.seed} (play this match again with --seed {match.seed}). "
                   f"Target {options.target} points.")
        self.write(f"You are seat {self.me}; the computer is seat {self.cpu}. "
                   + st(f"Opponent: {self.label}.", "bold"))
        self.write("Answer with a move's number or the move; 'hint' suggests one, 'help' "
                   "explains, 'quit' stops.")
        shown_hand = 0
        try:
            while not match.is_over:
                number = match.hand_number
                if number != shown_hand:
                    self.screen.hand_header()
                    shown_hand = number
                    self.decisions = []
                seat = match.to_move
                assert seat is not None
                step = self.my_turn() if seat == self.me \
                    else match.apply(self.computer_move())
                self.screen.report(step)
                result = match.hands[number - 1].result
                if result is not None:
                    self.screen.hand_summary(number, result)
                    if self.review_hands and self.hand_review() and self.pause \
                            and not match.is_over:
                        self.wait_for_next_hand(number + 1)
        except _Quit:
            self.write("")
            self.write("Stopped.")
            self.save()
            return 0
        except KeyboardInterrupt:
            self.write("")
            self.write("Interrupted.")
            self.save()
            return 130
        except Exception:
            # whatever went wrong, the moves made so far are kept
            self.save()
            raise
        self.screen.match_summary()
        self.save()
        return 0

    def computer_move(self) -> Move:
        view = self.match.view(self.cpu)
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        with Thinking(self.st("  computer thinking…", "dim")):
            return self.computer.choose(view, self.budget)

    def wait_for_next_hand(self, number: int) -> None:
        try:
            text = self.read(f"Press Enter for hand {number} (or quit): ")
        except EOFError:
            raise _Quit from None
        if text.strip().lower() in QUIT_WORDS:
            raise _Quit

    # -- your turn -----------------------------------------------------------------------------
    def my_turn(self) -> Step:
        match = self.match
        view = match.view(self.me)
        legal = view.legal_moves
        if len(legal) == 1 and isinstance(legal[0], Draw | Pass):
            self.write("")
            what = "draw" if isinstance(legal[0], Draw) else "pass"
            self.write(f"You have no tile that fits: you {what}.")
            return match.apply(legal[0])
        self.screen.show(view)
        while True:
            try:
                text = self.read(self.screen.prompt(legal))
            except EOFError:
                raise _Quit from None
            word = text.strip().lower()
            if not word:
                continue
            if word in QUIT_WORDS:
                raise _Quit
            if word in HELP_WORDS:
                self.screen.help()
                continue
            if word in SHOW_WORDS:
                self.screen.show(view)
                continue
            if word in HINT_WORDS:
                self.hint(view)
                continue
            try:
                move = self.read_move(text.strip(), view)
            except DominoError as exc:
                self.write(self.st("  ✗ ", "bold-red") + self.screen.why(exc, legal))
                continue
            self.decisions.append((view, move))
            return match.apply(move)

    def hint(self, view: View) -> None:
        """The expert's best moves here, numbered as in the list, each with its reason."""
        legal = view.legal_moves
        self.write("")
        if len(legal) == 1:
            self.write(f"Only one move here: 1) {legal[0]}.")
            return
        try:
            with Thinking(self.st("Thinking about your moves… (Ctrl-C cancels)", "dim"),
                          after=0):
                values = hints.rank(hints.analyse(view, self.hint_budget,
                                                  self.match.seed or 0))
            # equivalent moves (a spinner's two short ends...) are one move: shown once
            values = hints.distinct(values, view)
        except KeyboardInterrupt:
            self.write("Hint cancelled.")
            return
        best = values[0]
        tried = sum(v.worlds for v in values)
        self.write(self.st("Hint:", "bold") + f" the expert's best moves ({tried} deals "
                   "of the hidden tiles tried; win chance = of the match):")
        for value in values[:HINT_MOVES]:
            head = f"  {legal.index(value.move) + 1:>2}) "
            self.screen.write_item(head, hints.explain(value, view, best),
                            "bold-green" if value is best else "bold")
        if len(values) > HINT_MOVES:
            self.write(self.st(f"  ({len(values) - HINT_MOVES} more move"
                               f"{'s' if len(values) - HINT_MOVES != 1 else ''} rated lower.)",
                               "dim"))

    def read_move(self, text: str, view: View) -> Move:
        """The move ``text`` names: a number on the list, or a move in notation. Only the
        plain digits 0-9 are numbers and notation (``²¹`` is neither)."""
        legal = view.legal_moves
        if text.isascii() and text.isdigit():
            number = int(text) if len(text) <= LIST_DIGITS else None
            if number is not None and 1 <= number <= len(legal):
                return legal[number - 1]
            if not (len(text) == 2 and all(c <= "6" for c in text)):
                raise _NotListed(f"there is no move {shown(text)[1:-1]} here: pick "
                                 f"1-{len(legal)}, or type a move like {legal[0]}")
        return resolve_move(text, legal, f"tile {view.n + 1} to lay", view.hand)

    # -- coaching ------------------------------------------------------------------------------
    def hand_review(self) -> bool:
        """After a hand: your moves that lost the most against the expert's. Return True if
        something was shown (so the next hand may wait for you)."""
        decisions = [(v, m) for v, m in self.decisions if len(v.legal_moves) > 1]
        self.decisions = []
        if not decisions:
            return False
        st, w = self.st, self.write
        w("")
        try:
            with Thinking(st(f"Reviewing your {len(decisions)} move"
                             f"{'s' if len(decisions) != 1 else ''}… (Ctrl-C skips)", "dim"),
                          after=0):
                found = hints.review(decisions, self.hint_budget, self.match.seed or 0,
                                     REVIEW_MOVES)
        except KeyboardInterrupt:
            w("Review skipped.")
            return False
        if not found:
            w(st("Review: ", "bold") + f"none of your {len(decisions)} choice"
              f"{'s' if len(decisions) != 1 else ''} this hand lost value against the "
              "expert's. Well played.")
            return True
        w(st("Your moves that cost the most", "bold")
          + f" (of {len(decisions)} choice{'s' if len(decisions) != 1 else ''}; "
            "the expert's view):")
        for item in found:
            chosen, best = item.chosen, item.best
            head = f"  tile {item.view.n + 1:>2}: "
            cost = (f"cost {hints.percent_change(item.win_loss).lstrip('+±')} win chance "
                    f"({item.certainty()})")
            if item.points_loss >= 0.05:
                cost += f", {item.points_loss:.1f} points"
            elif item.points_loss <= -0.05:
                cost += f" (though {-item.points_loss:.1f} points more)"
            w(head + "you played " + st(f"{chosen.move!s:<8}", "bold")
              + self.values_text(chosen) + "  " + st(cost, "yellow"))
            mine, theirs = hints.immediate_points(item.view, best.move)
            now = f"  (+{mine} now)" if mine and not theirs else \
                f"  (computer +{theirs} now)" if theirs else ""
            w(" " * len(head) + "better:    "
              + st(f"{hints.move_text(item.view, best.move):<8}", "bold-green")
              + self.values_text(best) + now)
            if item.focused is not None:
                w(" " * len(head) + st(f"({item.focused!s} was searched again, alone: the "
                                       "expert's first look had hardly tried it)", "dim"))
        w(st("  margin: your expected points minus the computer's, from that move to the end "
             "of the hand", "dim"))
        return True

    @staticmethod
    def values_text(value: hints.MoveValue) -> str:
        chance = hints.percent(hints.win_chance(value))
        return f" win chance {chance:>4}, margin {value.margin:+5.1f}"

    def save(self) -> None:
        record = match_record(self.match, self.players)
        with open(self.save_path, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
            fh.write("\n")
        self.write(f"Game record saved to {self.save_path}")
        self.write(f"  (see it again: dominolab replay {self.save_path} --show)")


class _NotListed(DominoError):
    """A number that is not on the list of moves."""


def opponent_label(text: str, name: str, budget: Budget | None) -> str:
    """How the opponent is named to you: ``hard (expert)``, ``expert, 0.5s``, ``greedy``."""
    own = bool(text.partition(":")[2].strip())
    if name in LEVELS:
        player, level_budget = LEVELS[name]
        shown = budget if own else level_budget
        return f"{name} ({player}" + (f", {shown}" if shown is not None else "") + ")"
    return name + (f", {budget}" if own and budget is not None else "")


def run_play(args: argparse.Namespace) -> int:
    """Play a match in the terminal; return the exit code."""
    spec = get_game(args.game)
    options = spec.options(args.option)
    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    name, budget = parse_player_spec(check_player_text(args.opponent, "--opponent"))
    if name == "omniscient":
        print("dominolab play: the omniscient player sees every tile, yours included, so it "
              "is never a person's opponent; choose a level (easy, medium, hard) or a player "
              "(random, greedy, pimc, expert)", file=sys.stderr)
        return 2
    hint_text = os.environ.get(HINT_BUDGET_ENV, "").strip()
    try:
        hint_budget = Budget.parse(check_player_text(hint_text, "budget")) \
            if hint_text else None
    except OptionError as exc:
        raise OptionError(f"{HINT_BUDGET_ENV}: {exc}") from None
    computer = make_player(name, seed)
    match = Match(spec, options, seed=seed)
    save_path = Path(args.save) if args.save else default_record_path(spec.name, seed)
    game = TerminalGame(spec, match, args.seat, computer, save_path,
                        use_color(args.no_color), budget=budget,
                        label=opponent_label(args.opponent, name, budget),
                        review=bool(getattr(args, "review", True)), hint_budget=hint_budget)
    return game.run()
