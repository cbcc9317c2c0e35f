"""The versioned JSON game record, and its replay (STYLE.md: a record replays exactly).

A record holds the game, rules version, options, seed, first opener, each hand's deal,
every move with where it went and what it gave, and the hand and match results. It is a
plain ``dict`` ready for ``json.dump``; reading and writing files is the caller's business,
but :func:`load_record` turns a file's bytes into a record with every limit checked
(through :func:`~dominolab.core.read_json`, the one bounded JSON reader).
"""

from __future__ import annotations

from typing import Any, Final

from dominolab.core.errors import DominoError, JsonError, RecordError, shown
from dominolab.core.games import RULES_VERSION, get_game
from dominolab.core.hand import Deal, HandResult, Step
from dominolab.core.jsonread import read_json
from dominolab.core.match import Match, MatchResult, first_opener_by_lot
from dominolab.core.moves import parse_move

FORMAT: Final = "dominolab-record"
FORMAT_VERSION: Final = 1

#: The largest record read: a match to the highest target (10,000 points, several hundred
#: hands) is a few MiB as ``dominolab play`` writes it, so 32 MiB leaves room and still
#: refuses a file that is plainly not a record before it is read whole.
MAX_RECORD_BYTES: Final = 32 * 1024 * 1024


def step_to_json(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": step.seat, "move": str(step.move), "n": step.n,
                           "points": list(step.points)}
    if step.count is not None:
        out["count"] = step.count
    if step.ends is not None:
        out["ends"] = [str(t) for t in step.ends]
        out["quartet"] = step.quartet
    if step.drew is not None:
        out["drew"] = str(step.drew)
    return out


def hand_result_to_json(result: HandResult) -> dict[str, Any]:
    return {
        "end": result.end,
        "winner": result.winner,
        "points": list(result.points),
        "bonus": result.bonus,
        "bonus_quartets": [[str(a), str(b)] for a, b in result.bonus_quartets],
        "pips_left": None if result.pips_left is None else list(result.pips_left),
    }


def match_result_to_json(result: MatchResult) -> dict[str, Any]:
    return {"end": result.end, "winner": result.winner, "totals": list(result.totals),
            "hands": result.hands}


def match_record(match: Match, players: tuple[str, str] | None = None) -> dict[str, Any]:
    """The record of ``match`` so far. Moves made through the fast path are replayed to
    recover their figures, so a record is complete however the match was played."""
    full = _with_steps(match)
    hands = []
    for number, (hand, steps) in enumerate(zip(full.hands, full.steps, strict=True), start=1):
        hands.append({
            "number": number,
            "opener": hand.opener,
            "deal": hand.deal.to_json(),
            "moves": [step_to_json(s) for s in steps],
            "result": None if hand.result is None else hand_result_to_json(hand.result),
        })
    record: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": match.spec.name,
        "rules_version": RULES_VERSION,
        "options": match.options.to_dict(),
        "seed": match.seed,
        "first_opener": match.first_opener,
    }
    if players is not None:
        record["players"] = list(players)
    record["hands"] = hands
    record["totals"] = list(full.totals)
    record["result"] = None if full.result is None else match_result_to_json(full.result)
    return record


def _with_steps(match: Match) -> Match:
    if all(len(steps) == len(hand.moves) for hand, steps in zip(match.hands, match.steps,
                                                                strict=True)):
        return match
    again = Match(match.spec, match.options, seed=match.seed,
                  deals=[h.deal for h in match.hands], first_opener=match.first_opener)
    for hand in match.hands:
        for _, move in hand.moves:
            again.apply(move)
    return again


def load_record(data: bytes | str) -> Any:
    """The JSON value of a record file's contents (``bytes`` as read, UTF-8), for
    :func:`replay`, read by :func:`~dominolab.core.read_json` with a record's limits.
    Raises RecordError, saying what is wrong, for what is too big (over
    :data:`MAX_RECORD_BYTES`), not UTF-8 text, empty, not JSON, nested deeper than the
    parser goes, or holding a number longer than
    :data:`~dominolab.core.MAX_NUMBER_DIGITS` digits, one beyond a float's range, NaN or
    Infinity."""
    try:
        return read_json(data, "a record", max_bytes=MAX_RECORD_BYTES)
    except JsonError as exc:
        raise RecordError(f"not a record: {exc}") from None


def replay(record: Any) -> Match:
    """Re-apply a record's moves and check every stored figure; return the match.

    Raises RecordError naming the first thing that is malformed or does not match.
    """
    try:
        return _replay(record)
    except RecordError:
        raise
    except DominoError as exc:
        raise RecordError(f"not a record: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError,
            RecursionError) as exc:
        raise RecordError(f"malformed record: {_what(exc)}") from None


def _what(exc: Exception) -> str:
    """A person's reading of the error a malformed record gave."""
    if isinstance(exc, KeyError):
        return f"no {shown(exc.args[0] if exc.args else None)} field where one is needed"
    if isinstance(exc, RecursionError):
        return "nested too deep"
    return f"{type(exc).__name__}: {shown(str(exc))[1:-1]}"


def _expect(where: str, what: str, stored: Any, actual: Any) -> None:
    if stored == actual:
        return
    if isinstance(stored, dict) and isinstance(actual, dict):
        for key in [*actual, *(k for k in stored if k not in actual)]:
            if stored.get(key) != actual.get(key):
                raise RecordError(f"{where}: stored {_key(key)} "
                                  f"{shown(stored.get(key))}, replay gives "
                                  f"{shown(actual.get(key))}")
    raise RecordError(f"{where}: stored {what} {shown(stored)}, replay gives {shown(actual)}")


def _need(where: str, value: object, kind: type, what: str) -> None:
    if not isinstance(value, kind):
        raise RecordError(f"malformed record: {where} must be {what}, not {shown(value)}")


def _key(key: object) -> str:
    return key if isinstance(key, str) and key.isprintable() and len(key) <= 40 else shown(key)


def _replay(record: Any) -> Match:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"not a {FORMAT} (no \"format\": \"{FORMAT}\" field)")
    if record.get("format_version") != FORMAT_VERSION:
        raise RecordError(f"record format version {shown(record.get('format_version'))} is "
                          f"not {FORMAT_VERSION}, the one this dominolab reads")
    if record.get("rules_version") != RULES_VERSION:
        raise RecordError(f"record made under rules version "
                          f"{shown(record.get('rules_version'))}; this dominolab plays "
                          f"version {RULES_VERSION}")
    spec = get_game(record["game"])
    options = spec.options_class.from_dict(record["options"])
    seed = record.get("seed")
    hands = record["hands"]
    if not isinstance(hands, list) or not hands:
        raise RecordError("the record has no hands")
    for number, stored_hand in enumerate(hands, start=1):
        _need(f"hand {number}", stored_hand, dict, "an object")
        _need(f"hand {number}: its deal", stored_hand["deal"], dict, "an object")
        _need(f"hand {number}: its moves", stored_hand["moves"], list, "a list")
        for i, stored in enumerate(stored_hand["moves"], start=1):
            _need(f"hand {number}, move {i}", stored, dict, "an object")
    deals = [Deal.from_json(h["deal"]) for h in hands]
    first = record["first_opener"]
    if seed is not None:
        _expect("match", "first opener", first, first_opener_by_lot(seed))
        for number, deal in enumerate(deals, start=1):
            _expect(f"hand {number}", "deal", deal.to_json(),
                    Deal.for_hand(seed, number, spec.hand_size).to_json())
    match = Match(spec, options, seed=seed, deals=deals, first_opener=first)
    for number, stored_hand in enumerate(hands, start=1):
        where = f"hand {number}"
        if match.hand_number != number:
            state = "is over" if match.is_over else f"is still in hand {match.hand_number}"
            raise RecordError(f"{where}: the match {state} before it")
        _expect(where, "opener", stored_hand["opener"], match.hand.opener)
        for i, stored in enumerate(stored_hand["moves"], start=1):
            at = f"{where}, move {i} ({shown(stored.get('move'))})"
            if match.is_over or match.hand_number != number:
                raise RecordError(f"{at}: the hand is already over")
            _expect(at, "seat", stored["seat"], match.to_move)
            try:
                move = parse_move(stored["move"])
                step = match.apply(move)
            except DominoError as exc:
                raise RecordError(f"{at}: {exc}") from None
            _expect(at, "figures", stored, step_to_json(step))
        hand = match.hands[number - 1]
        stored_result = stored_hand.get("result")
        actual = None if hand.result is None else hand_result_to_json(hand.result)
        _expect(where, "result", stored_result, actual)
    if "totals" in record:
        _expect("match", "totals", record["totals"], list(match.totals))
    stored_match = record.get("result")
    actual_match = None if match.result is None else match_result_to_json(match.result)
    _expect("match", "result", stored_match, actual_match)
    return match
