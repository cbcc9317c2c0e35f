"""Move notation (src/dominolab/core/moves.py; RULES.md §1 distinct ports, §6 notation):
context-free text that parses back, and short forms resolved against a position."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import GAME_NAMES, T, apply_all, default_options, luzak_hand, widelec_hand
from dominolab.core import (
    DRAW,
    KEEP,
    PASS,
    PORTS,
    TILES,
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Match,
    Move,
    Play,
    Port,
    Tile,
    WidelecOptions,
    get_game,
    parse_move,
    parse_tile,
    play,
)

SEAT0 = "65 42 43 44 50 51 52 53 54 55 60 61"
SEAT1_NO_56 = "00 10 11 20 21 22 30 31 32 33 40 41"


def round_trips(move: Move) -> None:
    text = str(move)
    assert parse_move(text) == move
    assert parse_move(f"  {text} ") == move
    assert eval(repr(move), {"parse_move": parse_move, "DRAW": DRAW, "PASS": PASS,
                             "KEEP": KEEP}) == move


@pytest.mark.parametrize("game", GAME_NAMES)
def test_notation_every_legal_move_round_trips_in_random_games(game: str) -> None:
    """RULES.md §1 (the record says which port): parse_move(str(m)) == m for every legal
    move met in random matches, and the hand's own parser reads it back."""
    seen: set[str] = set()
    opts = get_game(game).options_class.from_dict({"target": 40})
    if game == "widelec":
        opts = WidelecOptions(target=40, must_play_drawn=False)
    for seed in range(25):
        match = Match(game, opts, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            legal = match.legal_moves()
            for m in legal:
                round_trips(m)
                assert match.hand.parse_move(str(m)) == m
                seen.add(str(m))
            match.apply(legal[rng.randrange(len(legal))])
    assert len(seen) > 100


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(TILES), st.integers(0, 6), st.sampled_from(PORTS), st.booleans())
def test_notation_every_play_round_trips(tile: Tile, inner: int, port: Port,
                                         luzak: bool) -> None:
    """parse_move(str(m)) == m for any well-formed play value."""
    if not tile.has(inner):
        with pytest.raises(InvalidMoveError):
            play(tile, inner, port, luzak)
        return
    round_trips(play(tile, inner, port, luzak))
    round_trips(play(tile, inner, None))


def test_notation_words_and_examples() -> None:
    """The documented examples: 65, 54@1e, 11@2e*, 44@R, draw, pass, keep."""
    assert parse_move("65") == play(T("65"), 6, None)
    mv = parse_move("54@1e")
    assert isinstance(mv, Play)
    assert (mv.tile, mv.inner, mv.outer, str(mv.port), mv.luzak) == (T("54"), 5, 4, "1e", False)
    mv = parse_move("11@2e*")
    assert isinstance(mv, Play) and mv.luzak and mv.port == Port.parse("2e")
    mv = parse_move("44@R")
    assert isinstance(mv, Play) and mv.port == Port.parse("R")
    assert parse_move("draw") is DRAW and parse_move("PASS") is PASS and parse_move("keep") is KEEP
    assert str(parse_move("56")) == "65"  # the opening names its high half first (1w / L)


@pytest.mark.parametrize("text", ["[6|5]", "6|5", "6-5", "65", "56", "[5|6]", " 6 | 5 ",
                                  "5-6", "6:5", "6,5"])
def test_notation_tiles_parse_in_all_accepted_forms(text: str) -> None:
    """Tiles: [6|5], 6|5, 6-5, 65, either half first."""
    assert parse_tile(text) is T("65")


@pytest.mark.parametrize("text", ["", "7", "77", "[6|7]", "abc", "6|5|4", "123", "6--5"])
def test_notation_bad_tiles_are_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        parse_tile(text)


@pytest.mark.parametrize("text", ["", "zz", "54@", "54@9q", "54@L@R", "5@1e", "11*", "99",
                                  "54@29e", "hop"])
def test_notation_bad_moves_are_invalid_and_quote_the_input(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert repr(text.strip()) in str(info.value) or repr(text) in str(info.value) \
        or text.strip() in str(info.value)


def test_notation_ports_parse_and_order() -> None:
    """Ports: L and R, and <k><side> with sides w e n s; each port once, ordered."""
    assert [str(p) for p in PORTS[:6]] == ["L", "R", "1w", "1e", "1n", "1s"]
    for p in PORTS:
        assert Port.parse(str(p)) is p
    assert sorted(PORTS) == list(PORTS)
    with pytest.raises(InvalidMoveError):
        Port.parse("0e")


def test_short_form_bare_tile_when_one_placement_fits() -> None:
    """Hand.parse_move: a bare tile is enough when one placement fits."""
    hand = luzak_hand(SEAT0, "00 10 11 20 21 22 30 31 32 33 40 62")
    hand.apply(hand.parse_move("65"))
    assert hand.parse_move("62") == parse_move("62@1w")
    assert hand.parse_move("[2|6]") == parse_move("62@1w")
    assert hand.parse_move("26@1w") == parse_move("62@1w")


def test_short_form_ambiguous_lists_the_choices() -> None:
    """Hand.parse_move: several placements fit: AmbiguousMoveError lists them."""
    hand = luzak_hand("33 " + SEAT0.replace("65 ", "") , "63 10 11 20 21 22 30 31 32 00 40 62")
    hand.apply(hand.parse_move("33"))
    hand.apply(hand.parse_move("36@1w"))
    with pytest.raises(AmbiguousMoveError) as info:
        hand.parse_move("43")
    choices = {str(c) for c in info.value.choices}
    assert choices == {"34@1e", "34@1n", "34@1s"}
    for c in choices:
        assert c in str(info.value)
    assert "'43'" in str(info.value)
    assert hand.parse_move("43@1n") == parse_move("34@1n")


def test_short_form_luzak_needs_no_star_and_digit_order_picks_inner() -> None:
    """Hand.parse_move: a luzak may be typed with or without *; the digit order tells
    which half is inner when that is the difference."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    hand.apply(hand.parse_move("65"))
    assert hand.parse_move("12@1e") == parse_move("12@1e*")
    assert hand.parse_move("21@1e*") == parse_move("21@1e*")
    with pytest.raises(AmbiguousMoveError) as info:
        hand.parse_move("12")
    assert len(info.value.choices) == 2  # 12@1w*, 12@1e* (digit order picks inner 1)


def test_short_form_illegal_quotes_input_and_position() -> None:
    """Hand.parse_move: IllegalMoveError quotes the input and describes the position."""
    hand = luzak_hand(SEAT0, "00 10 11 20 21 22 30 31 32 33 40 62")
    hand.apply(hand.parse_move("65"))
    with pytest.raises(IllegalMoveError) as info:
        hand.parse_move("54")  # not in seat 1's hand
    text = str(info.value)
    assert "'54'" in text and "65" in text and "seat 1" in text
    with pytest.raises(IllegalMoveError) as info:
        hand.parse_move("00")  # held, but fits nowhere and a normal play exists
    assert "'00'" in str(info.value) and "Position" in str(info.value)
    with pytest.raises(IllegalMoveError):
        hand.parse_move("draw")


def test_short_form_invalid_quotes_input_and_position() -> None:
    """Hand.parse_move: InvalidMoveError for text that is no move at all."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    hand.apply(hand.parse_move("65"))
    with pytest.raises(InvalidMoveError) as info:
        hand.parse_move("x9")
    assert "'x9'" in str(info.value) and "Position" in str(info.value)


def test_short_form_widelec_words_and_over() -> None:
    """Hand.parse_move in Widelec: draw/pass words; after the end, GameOverError."""
    hand = widelec_hand("66 65 64 63 62 33 44", "00 10 11 20 21 22 30")
    apply_all(hand, "66")
    assert hand.parse_move("draw") is DRAW
    with pytest.raises(IllegalMoveError):
        hand.parse_move("pass")
    with pytest.raises(IllegalMoveError):
        hand.parse_move("00")
    m = Match("widelec", default_options("widelec"), seed=1)
    rng = random.Random(1)
    while not m.is_over:
        legal = m.legal_moves()
        m.apply(legal[rng.randrange(len(legal))])
    with pytest.raises(GameOverError):
        m.parse_move("draw")


def test_move_errors_are_value_errors() -> None:
    """The three move errors are ValueError subclasses (as in python-chess)."""
    for cls in (InvalidMoveError, IllegalMoveError, AmbiguousMoveError, GameOverError):
        assert issubclass(cls, ValueError)


def test_tile_digits_are_high_half_first() -> None:
    """docs/notation.md: a tile's canonical two digits, as a lead is written."""
    assert Tile(5, 6).digits == "65" and Tile(0, 0).digits == "00"
    assert all(str(play(t, t.hi, None)) == t.digits for t in TILES)


#: digits that ``str.isdigit`` and ``int`` take but notation does not: superscript,
#: Arabic-Indic, fullwidth, Devanagari
OTHER_DIGITS = ("\u00b2\u00b9", "\u0666\u0665", "\uff16\uff15", "\u096c\u096b")


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_notation_only_ascii_digits_are_pips(digits: str) -> None:
    """Other scripts' digits are no pips: a lead, a tile at a port, a tile, or one digit of
    two give InvalidMoveError naming the input and the character, never another error."""
    for text in (digits, f"{digits}@1e", f"6{digits[1]}@1e", f"[{digits[0]}|5]"):
        with pytest.raises(InvalidMoveError) as info:
            parse_move(text)
        assert repr(text) in str(info.value) and "character" in str(info.value)
        assert "0-9" in str(info.value)
    with pytest.raises(InvalidMoveError):
        parse_tile(digits)
    with pytest.raises(InvalidMoveError):
        parse_tile(f"{digits[0]}-5")


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_short_form_other_digits_are_invalid_with_the_position(digits: str) -> None:
    """Hand.parse_move / resolve_move: InvalidMoveError quoting the input, the character
    and the position, where ``int`` would read a number or raise a bare ValueError."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    with pytest.raises(InvalidMoveError) as info:
        hand.parse_move(digits)
    message = str(info.value)
    assert repr(digits) in message and "(character 1)" in message and "Position" in message


def test_notation_words_are_plain_ascii() -> None:
    """A word is not read through Unicode case folding (the Kelvin sign lowers to k)."""
    with pytest.raises(InvalidMoveError):
        parse_move("\u212aeep")
    assert parse_move("KEEP") is KEEP


def test_notation_long_input_is_quoted_short() -> None:
    """A huge input is named in the error, cut short, never copied whole."""
    text = "9" * 100_000
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert "999" in str(info.value) and len(str(info.value)) < 300
