"""The training pipeline (dominolab.lab.train, `dominolab train`): a tiny model trained end
to end on a few hundred positions, the same config giving the same weights, the positions the
same whatever the workers, and every bad config or file refused in words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dominolab.cli.main import main
from dominolab.core import Match, OptionError, get_game
from dominolab.lab.train import (
    SHIPPED_CONFIG,
    load_config,
    parse_config,
    train_game,
)
from dominolab.lab.train.fit import fit, split
from dominolab.lab.train.positions import (
    FIELDS,
    PerturbedPlayer,
    Positions,
    make_positions,
    make_training_player,
    pairing,
)
from dominolab.players import GreedyPlayer
from dominolab.players.policy import SLOTS, Network, NetworkError, inputs, public_size, slots_of

TINY = {
    "seed": 3,
    "games": ["luzak-line"],
    "data": {"mix": ["greedy", "greedy~0.3", "pimc:6w"], "matches": 12, "validation": 0.25},
    "player": {"values": "pimc:6w"},
    "network": {"hidden": [16], "epochs": 3, "batch": 64},
}


@pytest.fixture(scope="module")
def tiny_positions() -> Iterator[tuple[object, Positions]]:
    config = parse_config(TINY)[0]
    yield config, make_positions(config)


def test_positions_are_choices_in_match_order(tiny_positions: tuple[object, Positions]) -> None:
    _, positions = tiny_positions
    assert len(positions) > 200  # a few hundred positions from 12 matches
    assert positions.public.shape == (len(positions), public_size("luzak-line"))
    assert positions.legal.shape == (len(positions), SLOTS)
    assert (positions.legal.sum(axis=1) >= 2).all()  # only real choices
    assert positions.legal[np.arange(len(positions)), positions.chosen].all()
    assert (np.diff(positions.match) >= 0).all()
    assert set(np.unique(positions.player)) <= {0, 1, 2}


def test_positions_do_not_depend_on_workers(tiny_positions: tuple[object, Positions]) -> None:
    config, positions = tiny_positions
    assert isinstance(positions, Positions)
    again = make_positions(config, workers=2)  # type: ignore[arg-type]
    for field in FIELDS:
        assert np.array_equal(getattr(again, field), getattr(positions, field)), field


def test_a_row_is_what_the_mover_saw() -> None:
    """Replaying match 0 of the tiny config with the same players gives the first rows."""
    config = parse_config(TINY)[0]
    positions = make_positions(replace(config, data=replace(config.data, matches=1)))
    a, b = pairing(config.game, config.seed, 0, config.data.mix)
    assert a in config.data.mix and b in config.data.mix
    hand, public = positions.private[0, :28], positions.public[0]
    assert hand.sum() >= 2 and public.shape[0] == public_size(config.game)


def test_train_end_to_end_and_same_config_same_bytes(tmp_path: Path) -> None:
    config = parse_config(TINY)[0]
    first = train_game(config, tmp_path / "a", cache=tmp_path / "cache")
    second = train_game(config, tmp_path / "b", cache=tmp_path / "cache")  # from the cache
    assert [t.role for t in first] == ["reading", "player"]
    for one, two in zip(first, second, strict=True):
        assert one.path.read_bytes() == two.path.read_bytes()
        network = Network.read(one.path.read_bytes())
        assert network.meta["game"] == "luzak-line" and network.meta["role"] == one.role
        assert network.meta["config"] == config.digest()
        assert np.isfinite(one.fitted.loss)
    # the reading learned something from a few hundred positions: better than a uniform
    # choice on the held-out matches (the player's values need more than this tiny run)
    assert first[0].fitted.loss < first[0].fitted.uniform_loss
    assert len(list((tmp_path / "cache").iterdir())) == 1
    positions = make_positions(config)
    # the player's targets: each legal slot valued by the search, nothing elsewhere
    assert (positions.values[~positions.legal] == 0).all()
    assert np.abs(positions.values[positions.legal]).sum() > 0


def test_a_network_reads_a_position_and_prefers_legal_moves(tmp_path: Path) -> None:
    config = parse_config(TINY)[0]
    positions = make_positions(config)
    fitted = fit(config, positions, "reading")
    match = Match("luzak-line", seed=5)
    view = match.view(match.to_move or 0)
    hand, public = inputs(view)
    legal = slots_of(view.legal_moves)
    p = fitted.network.probabilities(hand[None, :], public, legal[None, :])[0]
    assert p[~legal].sum() == 0 and abs(p.sum() - 1.0) < 1e-5


def test_split_holds_out_the_last_matches(tiny_positions: tuple[object, Positions]) -> None:
    _, positions = tiny_positions
    train, held = split(positions, 0.25)
    assert train.match.max() < held.match.min()
    assert len(train) + len(held) == len(positions)


def test_perturbed_player_blunders_at_its_rate() -> None:
    player = make_training_player("greedy~1", 7)
    assert isinstance(player, PerturbedPlayer) and player.name == "greedy~1"
    assert isinstance(make_training_player("greedy", 7), GreedyPlayer)
    greedy = GreedyPlayer()
    match = Match("luzak", seed=11)
    differs = 0
    for _ in range(30):
        if match.to_move is None:
            break
        view = match.view(match.to_move)
        move = player.choose(view)
        assert move in view.legal_moves
        differs += move != greedy.choose(view)
        match.apply(move)
    assert differs > 0


@pytest.mark.parametrize(("change", "words"), [
    ({"data": {"mix": ["greedy", "pimc"], "matches": 5}}, "thinks against the clock"),
    ({"data": {"mix": ["nobody"], "matches": 5}}, "no player"),
    ({"data": {"mix": ["greedy~2"], "matches": 5}}, "from 0 to 1"),
    ({"data": {"mix": ["greedy~x"], "matches": 5}}, "must be a number"),
    ({"data": {"mix": ["greedy"], "matches": 1}}, "data.matches"),
    ({"data": {"mix": ["greedy"], "matches": 5, "extra": 1}}, "unknown key 'extra'"),
    ({"player": {"values": "expert:9w"}}, "must be a search that values"),
    ({"player": {"values": "pimc"}}, "thinks against the clock"),
    ({"network": {"hidden": []}}, "network.hidden"),
    ({"network": {"epochs": 0}}, "network.epochs"),
    ({"games": ["chess"]}, "no game 'chess'"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_bad_configs_are_refused_in_words(change: dict[str, object], words: str) -> None:
    raw = {**TINY, **change}
    with pytest.raises(OptionError, match=words):
        parse_config(raw)


def test_the_shipped_config_reads_and_leaves_the_unseen_players_out() -> None:
    configs = load_config(SHIPPED_CONFIG)
    assert [c.game for c in configs] == ["luzak", "luzak-line", "widelec"]
    for c in configs:  # measured against them as players the networks never saw
        assert not any(s.startswith(("pimc-classic", "greedy-worst")) for s in c.data.mix)
        assert c.values == "pimc:40w"


def test_cli_trains_into_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(
        'seed = 3\ngames = ["luzak-line"]\n[data]\nmix = ["greedy", "greedy~0.3", '
        '"pimc:6w"]\nmatches = 6\nvalidation = 0.34\n[player]\nvalues = "pimc:6w"\n'
        '[network]\nhidden = [8]\nepochs = 2\n', encoding="utf-8")
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "nets"),
                 "--cache", "none", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "luzak-line reading:" in out and "luzak-line player:" in out
    assert sorted(p.name for p in (tmp_path / "nets").iterdir()) == [
        "luzak-line-player.npz", "luzak-line-reading.npz"]


@pytest.mark.parametrize(("text", "words"), [
    ("seed = [", "not a TOML file"),
    ('games = ["widelec"]\n[data]\nmix = ["greedy"]\nmatches = 4\n[player]\n'
     'values = "pimc:5w"\n', "no game luzak in the config"),
])
def test_cli_refuses_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               text: str, words: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text, encoding="utf-8")
    assert main(["train", "--config", str(config), "--game", "luzak",
                 "--out", str(tmp_path)]) == 2
    assert words in capsys.readouterr().err


def test_a_broken_weights_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NetworkError, match="not a network file"):
        Network.read(b"not a zip", "x.npz")
    config = parse_config(TINY)[0]
    net = fit(config, make_positions(replace(config, data=replace(config.data, matches=4))),
              "reading").network
    old = Network(net.weights, net.biases, {**net.meta, "features": 0})
    old.save(tmp_path / "old.npz")
    with pytest.raises(NetworkError, match="features version 0"):
        Network.read((tmp_path / "old.npz").read_bytes(), "old.npz")
    with pytest.raises(NetworkError, match="do not fit"):
        Network((net.weights[0],), (net.biases[0][:3],), net.meta)
    assert json.loads(json.dumps(dict(net.meta)))["game"] == "luzak-line"
    assert get_game("luzak-line").name == net.meta["game"]
