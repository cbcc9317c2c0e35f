"""The pure rules core of dominolab: no I/O, no global randomness, no imports of the layers
above it. Everything a player, a front end or an adapter needs is exported here."""

from dominolab.core.equivalence import (
    canonical_move,
    equivalent_moves,
    port_classes,
    representatives,
)
from dominolab.core.errors import (
    AmbiguousMoveError,
    DominoError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    JsonError,
    OptionError,
    RecordError,
)
from dominolab.core.games import GAMES, RULES_VERSION, GameSpec, get_game
from dominolab.core.hand import (
    Deal,
    Hand,
    HandResult,
    LuzakHand,
    LuzakLineHand,
    Points,
    Step,
    WidelecHand,
)
from dominolab.core.jsonread import MAX_JSON_BYTES, MAX_NUMBER_DIGITS, read_json
from dominolab.core.match import Match, MatchResult, first_opener_by_lot
from dominolab.core.moves import (
    DRAW,
    KEEP,
    LEFT,
    PASS,
    PORTS,
    RIGHT,
    Draw,
    Keep,
    Move,
    Pass,
    Play,
    Port,
    parse_move,
    play,
    resolve_move,
)
from dominolab.core.options import LuzakLineOptions, LuzakOptions, Options, WidelecOptions
from dominolab.core.quartets import best_quartets, quartet_text, quartet_worth
from dominolab.core.reasons import Reason, reason_of
from dominolab.core.record import MAX_RECORD_BYTES, load_record, match_record, replay
from dominolab.core.scripted import score_moves, split_moves
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import TILES, Tile, parse_tile
from dominolab.core.view import View, view_of

__all__ = [
    "AmbiguousMoveError", "DRAW", "Deal", "DominoError", "Draw", "GAMES", "GameOverError",
    "GameSpec", "Hand", "HandResult", "IllegalMoveError", "InvalidMoveError", "JsonError",
    "KEEP", "Keep", "LEFT", "LineTable", "MAX_JSON_BYTES", "MAX_NUMBER_DIGITS",
    "MAX_RECORD_BYTES", "LuzakHand", "LuzakLineHand", "LuzakLineOptions", "LuzakOptions",
    "Match", "MatchResult", "Move", "OptionError", "Options", "PASS", "PORTS", "Pass", "Play",
    "Points", "Port", "RIGHT", "RULES_VERSION", "Reason", "RecordError", "Step", "TILES",
    "Tile", "TreeTable", "View", "WidelecHand", "WidelecOptions", "best_quartets",
    "canonical_move", "equivalent_moves", "port_classes", "representatives",
    "first_opener_by_lot", "get_game", "load_record", "match_record", "parse_move",
    "parse_tile", "play", "quartet_text", "quartet_worth", "read_json", "reason_of", "replay",
    "resolve_move", "score_moves", "split_moves", "view_of",
]
