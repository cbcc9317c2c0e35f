"""The player's guide (docs/learn.md, "The player's guide"): one page per game, in English
and Polish, written for players, with small diagrams laid by the engine.

The texts are Markdown files in ``web/content/guide/``, ``GAME.LANG.md``::

    ---
    title: Luzak
    summary: one line for the index
    players: Ann, Ben
    ---
    An introduction (before the first section).

    ## What you hold {#hold}
    Text, with {placeholders}.

    ```diagram spinner
    The caption, with {placeholders} filled from the engine.
    ```

Every page has the sections :data:`SECTIONS`, in that order, and places each of its game's
diagrams (:data:`DIAGRAMS`) once. A diagram is a move list laid from an empty table by
:func:`~dominolab.core.score_moves` (the worked examples of RULES.md section 6) and placed by
:func:`~dominolab.web.games.layout.layout_table`, or the tiles left in a hand paired into the best
quartets by :func:`~dominolab.core.best_quartets` (the end-of-hand bonus).

Placeholders (never a number typed into a caption):

* ``{hand_size}``, ``{undealt}``, ``{target}``, ``{tiles_per_hand}``, ``{per_seat}``: the
  game's numbers (its spec and default options);
* ``{quartet:34:56}``, ``{worth:34:56}``: the quartet two tiles form and its worth;
* in a table diagram's caption, for the i-th tile laid: ``{tile3}``, ``{n3}``, ``{by3}`` (who
  laid it), ``{count3}``, ``{points3}`` (the points the step gave), ``{scorer3}`` (who got
  them), ``{to3}`` and ``{pips3}`` (a luzak: the opponent, and the pips they get),
  ``{quartet3}``; ``{total0}``, ``{total1}``; the same names without a number speak of the
  diagram's focus step (the last one unless said otherwise);
* in the bonus diagram: ``{winner}``, ``{loser}``, ``{left_tiles}``, ``{pair1a}``,
  ``{pair1b}``, ``{quartet1}``, ``{worth1}`` (and 2, ...), ``{unpaired}``, ``{bonus}``;
* ``{name0}``, ``{name1}``: the two players of the page's examples.

A number placeholder may carry the words to follow it: ``{points|point|points}`` (English:
one, other) or ``{points|punkt|punkty|punktów}`` (Polish: one, few, many) gives
"10 points", "10 punktów".

Everything is computed once per process (:func:`guide_page`, :func:`guide_index`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from markdown_it import MarkdownIt
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from dominolab.core import (
    GAMES,
    GameSpec,
    Play,
    Step,
    best_quartets,
    parse_tile,
    quartet_text,
    quartet_worth,
    reason_of,
    score_moves,
)
from dominolab.web.errors import ApiError
from dominolab.web.games.layout import Placed, layout_table
from dominolab.web.games.payload import step_json

GUIDE_DIR: Final = Path(__file__).parent / "guide"
#: the guide's languages
LANGS: Final = ("en", "pl")
#: every page's sections, in order: what you hold, what you may play, how you score, how a
#: hand ends, how a match ends
SECTIONS: Final = ("hold", "play", "score", "hand", "match")
#: where the exact reading of the rules is (the page's route)
EXACT: Final = "/rules/exact"


class GuideError(ValueError):
    """A guide text that cannot be built (a missing section, an unknown placeholder...)."""


@dataclass(frozen=True, slots=True)
class Diagram:
    """One diagram of a game's page: ``moves`` laid from an empty table (a table diagram),
    or ``hand``, the tiles left in the loser's hand, paired into the best quartets (the
    end-of-hand bonus). ``focus`` is the step the unnumbered placeholders speak of (1-based,
    0: the last); ``highlight`` the tile numbers the caption talks about; ``example`` names
    the worked example of RULES.md section 6 it shows."""

    id: str
    example: str
    moves: str = ""
    focus: int = 0
    highlight: tuple[int, ...] = ()
    hand: str = ""
    winner: int = 0


#: each game's diagrams (RULES.md section 6: L1, L3, V1, W2, W3)
DIAGRAMS: Final[dict[str, tuple[Diagram, ...]]] = {
    "luzak": (
        Diagram("spinner", "L3", "33 31@1w 30@1e 00@3e 36@1n 66@5e 32@1s", highlight=(1,)),
        Diagram("count", "L1", "65 54@1e 64@1w", highlight=(2,), focus=2),
        Diagram("luzak", "L1", "65 54@1e 64@1w 11@2e* 44@3e", focus=4, highlight=(4,)),
    ),
    "luzak-line": (
        Diagram("line-count", "V1", "64 44@R", highlight=(2,)),
        Diagram("line-luzak", "V1", "64 44@R 62@L 51@R* 13@R", focus=4, highlight=(4,)),
    ),
    "widelec": (
        Diagram("quartet", "W2", "21 10@R 06@R", highlight=(1, 3)),
        Diagram("bonus", "W3", hand="34 56 22 13 06", winner=0),
    ),
}

#: the words of the diagrams' labels (for screen readers), per language
LABELS: Final[dict[str, dict[str, str]]] = {
    "en": {"table": "The table; its tiles in the order they were laid: {tiles}",
           "hand": "The tiles left in {loser}'s hand: {tiles}; paired: {pairs}"},
    "pl": {"table": "Stół; kamienie w kolejności wykładania: {tiles}",
           "hand": "Kamienie, które zostały w ręku (gracz {loser}): {tiles}; pary: {pairs}"},
}

_MD: Final = MarkdownIt("commonmark", {"html": False})
_FRONT: Final = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_HEADING: Final = re.compile(r"^## (.+?) \{#([a-z-]+)\}\s*$")
_FENCE: Final = re.compile(r"^```diagram ([a-z-]+)\n(.*?)\n```[ \t]*$", re.S | re.M)
_PLACEHOLDER: Final = re.compile(r"\{([^{}]*)\}")
_NAME: Final = re.compile(r"^([a-z][a-z_0-9]*)((?::[0-9]{2})*)((?:\|[^|]+)*)$")

Numbers = dict[str, int | str]


# -- the engine's numbers --------------------------------------------------------------------

def game_numbers(spec: GameSpec) -> Numbers:
    """The numbers of a game the texts may name: deal, target, tiles per hand."""
    out: Numbers = {"hand_size": spec.hand_size, "undealt": 28 - 2 * spec.hand_size,
                    "target": spec.options_class().target}
    if spec.tiles_per_hand is not None:
        out["tiles_per_hand"] = spec.tiles_per_hand
        out["per_seat"] = spec.tiles_per_hand // 2
    return out


def _tiles_text(tiles: list[str]) -> str:
    return ", ".join(tiles)


def _laid(move: Play) -> str:
    """A tile as the text tells it: the touching half first (the lead: high half first)."""
    if move.port is None:
        return str(move.tile)
    return f"[{move.inner}|{move.tile.other(move.inner)}]"


def table_numbers(spec: GameSpec, steps: list[Step], names: tuple[str, str],
                  focus: int) -> Numbers:
    """A table diagram's numbers, step by step, from the engine's steps (and the reasons
    :func:`~dominolab.core.reason_of` gives them)."""
    out: Numbers = {}
    totals = [0, 0]
    for i, step in enumerate(steps, start=1):
        move = step.move
        assert isinstance(move, Play)
        reason = reason_of(spec, step)
        got = [seat for seat in (0, 1) if step.points[seat]]
        values: Numbers = {"n": step.n, "tile": _laid(move), "by": names[step.seat],
                           "points": sum(step.points)}
        if len(got) == 1:
            values["scorer"] = names[got[0]]
        if step.count is not None:
            values["count"] = step.count
        if reason.kind == "luzak" and reason.to is not None:
            values["to"] = names[reason.to]
            if reason.pips:
                values["pips"] = reason.pips
        if reason.quartet:
            values["quartet"] = reason.quartet
        for key, value in values.items():
            out[f"{key}{i}"] = value
            if i == (focus or len(steps)):
                out[key] = value
        totals[0] += step.points[0]
        totals[1] += step.points[1]
    out["total0"], out["total1"] = totals
    return out


def _table_diagram(spec: GameSpec, d: Diagram, names: tuple[str, str]) -> dict[str, Any]:
    steps = score_moves(spec, d.moves)
    options = spec.options_class()
    placements = [s.move for s in steps if isinstance(s.move, Play)]
    layout = layout_table(spec, options, placements, "wide")
    return {
        "id": d.id, "kind": "table", "game": spec.name, "example": d.example,
        "moves": [str(s.move) for s in steps],
        "layout": layout.to_json(),
        "highlight": list(d.highlight or (len(steps),)),
        "steps": [step_json(spec, s, None) for s in steps],
        "numbers": table_numbers(spec, steps, names, d.focus),
    }


#: the bonus diagram: tiles stand upright, pairs side by side, a gap between groups
_GAP: Final = 0.6


def _hand_diagram(spec: GameSpec, d: Diagram, names: tuple[str, str]) -> dict[str, Any]:
    texts = d.hand.split()
    held = [parse_tile(t) for t in texts]
    shown_as = {parse_tile(t): (int(t[0]), int(t[1])) for t in texts}  # halves as written
    edge = bool(getattr(spec.options_class(), "edge_double", True))
    bonus, pairs = best_quartets(held, edge)
    paired = {t for pair in pairs for t in pair}
    unpaired = [t for t in held if t not in paired]
    groups = [list(p) for p in pairs] + [[t] for t in unpaired]
    placed: list[Placed] = []
    boxes: list[list[float]] = []
    x = 0.0
    for group in groups:
        x0 = x
        for tile in group:
            top, bottom = shown_as[tile]
            placed.append(Placed(len(placed) + 1, tile, x, 0.0, 1.0, 2.0, top, bottom, False,
                                 False))
            x += 1.0
        boxes.append([x0, 0.0, x, 2.0])
        x += _GAP
    numbers: Numbers = {"winner": names[d.winner], "loser": names[1 - d.winner],
                        "left_tiles": _tiles_text([f"[{hi}|{lo}]" for hi, lo in
                                                   (shown_as[t] for t in held)]),
                        "bonus": bonus}
    out_pairs = []
    for j, (a, b) in enumerate(pairs, start=1):
        quartet = quartet_text(a, b, edge)
        worth = quartet_worth(a, b, edge)
        assert quartet is not None
        numbers[f"pair{j}a"] = "[{}|{}]".format(*shown_as[a])
        numbers[f"pair{j}b"] = "[{}|{}]".format(*shown_as[b])
        numbers[f"quartet{j}"] = quartet
        numbers[f"worth{j}"] = worth
        out_pairs.append({"tiles": [a.digits, b.digits], "quartet": quartet, "worth": worth,
                          "box": boxes[j - 1]})
    numbers["unpaired"] = _tiles_text(["[{}|{}]".format(*shown_as[t]) for t in unpaired])
    return {
        "id": d.id, "kind": "hand", "game": spec.name, "example": d.example,
        "layout": {"tiles": [p.to_json() for p in placed], "bounds": [0.0, 0.0, x - _GAP, 2.0]},
        "highlight": [p.k for p in placed if p.tile in paired],
        "pairs": out_pairs, "left": [t.digits for t in unpaired], "bonus": bonus,
        "numbers": numbers,
    }


# -- the texts -------------------------------------------------------------------------------

def _plural(lang: str, value: int, forms: list[str]) -> str:
    if len(forms) == 2:
        return forms[0] if value == 1 else forms[1]
    if len(forms) == 3 and lang == "pl":
        one, few, many = forms
        if value == 1:
            return one
        d, h = value % 10, value % 100
        return few if 2 <= d <= 4 and not 12 <= h <= 14 else many
    raise GuideError(f"{lang}: give 2 word forms (English) or 3 (Polish), not {forms}")


def fill(text: str, numbers: Numbers, lang: str, where: str, edge_double: bool = True) -> str:
    """``text`` with every placeholder replaced (GuideError if one cannot be)."""

    def one(m: re.Match[str]) -> str:
        found = _NAME.match(m.group(1))
        if found is None:
            raise GuideError(f"{where}: cannot read the placeholder {m.group(0)!r}")
        name, args, words = found.groups()
        tiles = [parse_tile(a) for a in args.split(":")[1:]]
        value: int | str | None
        if name in ("quartet", "worth") and len(tiles) == 2:
            a, b = tiles
            value = (quartet_text(a, b, edge_double) if name == "quartet"
                     else quartet_worth(a, b, edge_double)) or None
        elif tiles:
            value = None
        else:
            value = numbers.get(name)
        if value is None:
            raise GuideError(f"{where}: no value for {m.group(0)!r} (known: "
                             f"{', '.join(sorted(numbers))})")
        if words:
            if not isinstance(value, int):
                raise GuideError(f"{where}: {m.group(0)!r} gives words to a text")
            return f"{value} {_plural(lang, value, words.split('|')[1:])}"
        return str(value)

    out = _PLACEHOLDER.sub(one, text)
    if "{" in out or "}" in out:
        raise GuideError(f"{where}: a brace is left unmatched")
    return out


def _front(text: str, where: str) -> tuple[dict[str, str], str]:
    m = _FRONT.match(text)
    if m is None:
        raise GuideError(f"{where}: the text starts with no --- front matter ---")
    meta = {}
    for line in m.group(1).splitlines():
        key, colon, value = line.partition(":")
        if not colon:
            raise GuideError(f"{where}: front matter line {line!r} is not 'key: value'")
        meta[key.strip()] = value.strip()
    for key in ("title", "summary", "players"):
        if not meta.get(key):
            raise GuideError(f"{where}: the front matter has no {key}")
    return meta, text[m.end():]


def _read(game: str, lang: str) -> str:
    return (GUIDE_DIR / f"{game}.{lang}.md").read_text(encoding="utf-8")


@cache
def guide_page(game: str, lang: str) -> dict[str, Any]:
    """The player's page of ``game`` in ``lang`` (docs/learn.md, "The player's guide")."""
    spec = GAMES[game]
    where = f"web/content/guide/{game}.{lang}.md"
    meta, body = _front(_read(game, lang), where)
    names = tuple(n.strip() for n in meta["players"].split(","))
    if len(names) != 2:
        raise GuideError(f"{where}: players: give two names")
    page_numbers = game_numbers(spec)
    page_numbers["name0"], page_numbers["name1"] = names
    edge = bool(getattr(spec.options_class(), "edge_double", True))
    defined = {d.id: d for d in DIAGRAMS.get(game, ())}
    diagrams: dict[str, dict[str, Any]] = {}

    def render(chunk: str, what: str) -> str:
        html: str = _MD.render(fill(chunk, page_numbers, lang, what, edge))
        return html.strip()

    parts = re.split(r"^(?=## )", body, flags=re.M)
    intro = parts[0].strip()
    sections: list[dict[str, Any]] = []
    for part in parts[1:]:
        head, _, rest = part.partition("\n")
        m = _HEADING.match(head)
        if m is None:
            raise GuideError(f"{where}: the heading {head!r} needs an id: '## Title {{#id}}'")
        title, sid = m.groups()
        blocks: list[dict[str, str]] = []
        pos = 0
        for fence in _FENCE.finditer(rest):
            text = rest[pos:fence.start()].strip()
            if text:
                blocks.append({"html": render(text, f"{where}, {sid}")})
            did, caption = fence.groups()
            d = defined.get(did)
            if d is None:
                raise GuideError(f"{where}: {game} has no diagram {did!r} "
                                 f"(it has: {', '.join(defined)})")
            if did in diagrams:
                raise GuideError(f"{where}: the diagram {did!r} is placed twice")
            made = (_hand_diagram(spec, d, names) if d.hand
                    else _table_diagram(spec, d, names))
            numbers = {**page_numbers, **made["numbers"]}
            made["caption"] = fill(" ".join(caption.split()), numbers, lang,
                                   f"{where}, diagram {did}", edge)
            made["label"] = _label(made, lang)
            diagrams[did] = made
            blocks.append({"diagram": did})
            pos = fence.end()
        text = rest[pos:].strip()
        if text:
            blocks.append({"html": render(text, f"{where}, {sid}")})
        sections.append({"id": sid, "title": fill(title, page_numbers, lang, where),
                         "blocks": blocks})
    ids = tuple(s["id"] for s in sections)
    if ids != SECTIONS:
        raise GuideError(f"{where}: the sections are {ids}, they must be {SECTIONS}")
    missing = set(defined) - set(diagrams)
    if missing:
        raise GuideError(f"{where}: the diagrams {sorted(missing)} are not placed")
    return {
        "game": game, "lang": lang, "title": meta["title"], "summary": meta["summary"],
        "intro": render(intro, f"{where}, introduction") if intro else "",
        "sections": sections,
        "diagrams": [diagrams[d.id] for d in DIAGRAMS.get(game, ()) if d.id in diagrams],
        "links": {"index": "/rules", "exact": EXACT, "learn": f"/learn/{game}"},
    }


def _label(diagram: dict[str, Any], lang: str) -> str:
    """What a diagram shows, for a screen reader: its tiles as drawn (and the pairs)."""
    words = LABELS[lang]
    tiles = [f"[{p['a']}|{p['b']}]" for p in diagram["layout"]["tiles"]]
    if diagram["kind"] == "table":
        return words["table"].format(tiles=", ".join(tiles))
    by_tile = {p["tile"]: f"[{p['a']}|{p['b']}]" for p in diagram["layout"]["tiles"]}
    pairs = "; ".join(f"{by_tile[a]} + {by_tile[b]} = {p['quartet']} ({p['worth']})"
                      for p in diagram["pairs"] for a, b in [p["tiles"]])
    return words["hand"].format(tiles=", ".join(tiles), pairs=pairs,
                                loser=diagram["numbers"]["loser"])


@cache
def guide_index(lang: str) -> dict[str, Any]:
    """The index of the guide: one card per game, its title, what makes it special and its
    fullest diagram (a preview)."""
    games = []
    for game in GAMES:
        page = guide_page(game, lang)
        games.append({"game": game, "title": page["title"], "summary": page["summary"],
                      "guide": f"/rules/{game}", "learn": page["links"]["learn"],
                      "preview": max(page["diagrams"], default=None,
                                     key=lambda d: len(d["layout"]["tiles"]))})
    return {"lang": lang, "games": games, "exact": EXACT}


# -- the API ---------------------------------------------------------------------------------

def _lang_of(request: Request) -> str:
    lang = str(request.path_params["lang"])
    if lang not in LANGS:
        raise ApiError(404, "the guide is in English (en) and Polish (pl)")
    return lang


async def guide_index_endpoint(request: Request) -> Response:
    """``GET /api/guide/{lang}``: the index (:func:`guide_index`)."""
    return JSONResponse(guide_index(_lang_of(request)))


async def guide_endpoint(request: Request) -> Response:
    """``GET /api/guide/{game}/{lang}``: a game's page (:func:`guide_page`)."""
    game = str(request.path_params["game"])
    if game not in GAMES:
        raise ApiError(404, f"there is no guide for {game[:40]!r}; the games are: "
                            f"{', '.join(GAMES)}")
    return JSONResponse(guide_page(game, _lang_of(request)))


__all__ = ["DIAGRAMS", "EXACT", "LANGS", "SECTIONS", "Diagram", "GuideError", "fill",
           "game_numbers", "guide_endpoint", "guide_index", "guide_index_endpoint",
           "guide_page", "table_numbers"]
