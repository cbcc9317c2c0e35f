"""One config for the learned networks: seeds, data sizes and hyper-parameters, read from a
TOML file (:data:`SHIPPED_CONFIG` made the networks in the package; ``dominolab train
--config FILE`` reads another). The same config gives the same positions on any machine and
the same weights on the same machine.

A file::

    seed = 1
    games = ["luzak", "luzak-line", "widelec"]

    [data]
    # each match pairs two players drawn (seeded) from the mix, entries equally likely
    # (list one twice to weigh it double); NAME~P makes a uniformly random legal move with
    # chance P instead of its own (a perturbed player)
    mix = ["greedy", "greedy~0.2", "pimc:40w", "expert-plain:500w"]
    matches = 400
    validation = 0.1          # the last tenth of the matches: held out to pick the epoch

    [player]
    values = "pimc:40w"       # the search whose value of every legal move the `learned`
                              # player's network learns to give

    [network]
    hidden = [128, 128]
    epochs = 30
    batch = 256
    learning_rate = 0.002
    weight_decay = 0.0001

    [games.widelec.data]      # per game, any key of [data] (or [player], [network])
    matches = 600

Every player in the mix must repeat its choices (a budget in worlds, or a player that takes
none): a config names no clock.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from dominolab.core import OptionError, get_game
from dominolab.core.errors import shown
from dominolab.lab.play import resolve_player
from dominolab.players import thinks_against_clock
from dominolab.players.policy import FEATURES_VERSION

#: the config of the shipped networks
SHIPPED_CONFIG: Final = Path(__file__).with_name("networks.toml")
#: a perturbed player's spec: NAME[:BUDGET]~CHANCE
NOISE_MARK: Final = "~"
_MAX_MATCHES: Final = 1_000_000
#: the searches whose value of a move is its mean point margin to the hand's end (the
#: expert's is a chance to win the match): the value targets
SEARCHES: Final = ("pimc", "pimc-classic")


@dataclass(frozen=True, slots=True)
class DataConfig:
    """How the positions are made: the players' ``mix``, how many ``matches``, and the
    share held out for ``validation``."""

    mix: tuple[str, ...]
    matches: int
    validation: float = 0.1


@dataclass(frozen=True, slots=True)
class NetworkConfig:
    """The network's ``hidden`` layer sizes and how it is fitted."""

    hidden: tuple[int, ...] = (128, 128)
    epochs: int = 30
    batch: int = 256
    learning_rate: float = 0.002
    weight_decay: float = 0.0001


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that makes one game's two networks."""

    game: str
    seed: int
    data: DataConfig
    values: str
    network: NetworkConfig

    def data_digest(self) -> str:
        """A digest of what decides the positions (the cache's key)."""
        return _digest({"game": self.game, "seed": self.seed, "data": asdict(self.data),
                        "values": self.values, "features": FEATURES_VERSION})

    def digest(self) -> str:
        """A digest of the whole config of this game and the features' version (written
        into the networks)."""
        return _digest({**asdict(self), "features": FEATURES_VERSION})


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def split_noise(spec: str) -> tuple[str, float]:
    """``NAME[:BUDGET]~P`` -> (``NAME[:BUDGET]``, P); P is 0 without a ``~``."""
    base, mark, chance = spec.partition(NOISE_MARK)
    if not mark:
        return spec, 0.0
    try:
        p = float(chance)
    except ValueError:
        raise OptionError(f"{shown(spec)}: the chance after {NOISE_MARK} must be a number "
                          "from 0 to 1") from None
    if not 0.0 <= p <= 1.0:
        raise OptionError(f"{shown(spec)}: the chance after {NOISE_MARK} must be from 0 to 1")
    return base, p


def _check_player(spec: Any, where: str) -> str:
    if not isinstance(spec, str):
        raise OptionError(f"{where}: a player is a text such as \"pimc:40w\", not {shown(spec)}")
    base, _ = split_noise(spec)
    name, budget = resolve_player(base)
    if thinks_against_clock(name, budget):
        raise OptionError(f"{where}: {shown(spec)} thinks against the clock, so its moves "
                          "would not repeat: give it a budget in worlds (e.g. pimc:40w)")
    return spec


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise OptionError(f"{where} must be a table")
    return value


def _known(table: Mapping[str, Any], keys: set[str], where: str) -> None:
    extra = sorted(set(table) - keys)
    if extra:
        raise OptionError(f"{where}: unknown key {shown(extra[0])}; keys: "
                          f"{', '.join(sorted(keys))}")


def _whole(value: Any, low: int, high: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(f"{where} must be a whole number from {low} to {high}, "
                          f"not {shown(value)}")
    return value


def _number(value: Any, low: float, high: float, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not \
            low <= value <= high:
        raise OptionError(f"{where} must be a number from {low} to {high}, not {shown(value)}")
    return float(value)


def _players(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise OptionError(f"{where} must be a list of one or more players")
    return tuple(_check_player(v, f"{where}[{i}]") for i, v in enumerate(value))


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    out.update(over)
    return out


def parse_config(raw: Mapping[str, Any], where: str = "the config") -> tuple[GameConfig, ...]:
    """The config of each game listed in ``raw`` (a TOML document's tables), or
    OptionError naming the key that is wrong."""
    _known(raw, {"seed", "games", "data", "player", "network"}, where)
    seed = _whole(raw.get("seed", 1), 0, 2**62, f"{where}: seed")
    games_raw = raw.get("games", ["luzak", "luzak-line", "widelec"])
    per_game: Mapping[str, Any] = {}
    if isinstance(games_raw, Mapping):  # [games.NAME.*] overrides: every game named there
        per_game = games_raw
        names = list(games_raw)
    elif isinstance(games_raw, list) and games_raw:
        names = games_raw
    else:
        raise OptionError(f"{where}: games must be a list of games or a table of them")
    out = []
    for name in names:
        try:
            game = get_game(str(name)).name
        except (OptionError, KeyError, ValueError):
            raise OptionError(f"{where}: no game {shown(name)}") from None
        own = _table(per_game.get(name, {}), f"{where}: games.{name}")
        _known(own, {"data", "player", "network"}, f"{where}: games.{name}")
        data = _merged(_table(raw.get("data", {}), f"{where}: data"),
                       _table(own.get("data", {}), f"{where}: games.{name}.data"))
        _known(data, {"mix", "matches", "validation"}, f"{where}: data")
        player = _merged(_table(raw.get("player", {}), f"{where}: player"),
                         _table(own.get("player", {}), f"{where}: games.{name}.player"))
        _known(player, {"values"}, f"{where}: player")
        net = _merged(_table(raw.get("network", {}), f"{where}: network"),
                      _table(own.get("network", {}), f"{where}: games.{name}.network"))
        _known(net, {"hidden", "epochs", "batch", "learning_rate", "weight_decay"},
               f"{where}: network")
        hidden = net.get("hidden", [128, 128])
        if not isinstance(hidden, list) or not hidden:
            raise OptionError(f"{where}: network.hidden must be a list of layer sizes")
        mix = _players(data.get("mix"), f"{where}: data.mix")
        values = _check_player(player.get("values", "pimc:40w"), f"{where}: player.values")
        if split_noise(values)[1] or resolve_player(values)[0] not in SEARCHES:
            raise OptionError(f"{where}: player.values must be a search that values every "
                              f"move ({', '.join(SEARCHES)}), not {shown(values)}")
        out.append(GameConfig(
            game=game, seed=seed,
            data=DataConfig(
                mix=mix,
                matches=_whole(data.get("matches"), 2, _MAX_MATCHES, f"{where}: data.matches"),
                validation=_number(data.get("validation", 0.1), 0.0, 0.5,
                                   f"{where}: data.validation")),
            values=values,
            network=NetworkConfig(
                hidden=tuple(_whole(h, 1, 4096, f"{where}: network.hidden") for h in hidden),
                epochs=_whole(net.get("epochs", 30), 1, 10_000, f"{where}: network.epochs"),
                batch=_whole(net.get("batch", 256), 1, 1_000_000, f"{where}: network.batch"),
                learning_rate=_number(net.get("learning_rate", 0.002), 1e-7, 1.0,
                                      f"{where}: network.learning_rate"),
                weight_decay=_number(net.get("weight_decay", 0.0001), 0.0, 1.0,
                                     f"{where}: network.weight_decay"))))
    return tuple(out)


def load_config(path: Path) -> tuple[GameConfig, ...]:
    """:func:`parse_config` of the TOML file ``path``; OptionError naming the file and
    the line for a file that is not TOML."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise OptionError(f"{path}: not a TOML file: {exc}") from None
    except UnicodeDecodeError:
        raise OptionError(f"{path}: not a text file (UTF-8)") from None
    return parse_config(raw, str(path))


__all__ = ["SHIPPED_CONFIG", "DataConfig", "GameConfig", "NetworkConfig", "load_config",
           "parse_config", "split_noise"]
