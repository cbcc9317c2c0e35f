"""The rules core is pure (STYLE.md 2 and 5; RULES.md §1 seeded randomness): no module
under src/dominolab/core imports the layers above it, uses global randomness, or does
I/O. Checked on the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dominolab.core

CORE = Path(dominolab.core.__file__).parent
MODULES = sorted(CORE.glob("*.py"))

#: modules whose import would mean I/O, processes, clocks or the environment
FORBIDDEN_MODULES = {"os", "sys", "io", "pathlib", "subprocess", "socket", "shutil",
                     "tempfile", "time", "datetime", "logging", "urllib", "http", "threading",
                     "multiprocessing", "asyncio", "builtins", "secrets", "uuid", "pickle",
                     "glob", "fileinput", "sqlite3"}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "breakpoint", "__import__",
                   "compile"}
#: attributes of the random module that are fine: making a seeded generator
RANDOM_OK = {"Random"}


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_purity_core_modules_found() -> None:
    names = {p.name for p in MODULES}
    assert {"__init__.py", "hand.py", "table.py", "match.py", "record.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_purity_imports_stay_inside_core(path: Path) -> None:
    """No module of dominolab.core imports dominolab outside dominolab.core, nor a module
    that does I/O."""
    for node in ast.walk(parsed(path)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # relative imports stay inside the package
            names = [node.module or ""]
        for name in names:
            top = name.split(".")[0]
            if top == "dominolab":
                assert name == "dominolab.core" or name.startswith("dominolab.core."), \
                    f"{path.name} imports {name}"
            assert top not in FORBIDDEN_MODULES, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_purity_no_global_randomness(path: Path) -> None:
    """Randomness only through explicit ``random.Random(...)`` generators: no call of the
    random module's global functions, and no ``from random import shuffle`` and the like."""
    tree = parsed(path)
    random_aliases = {"random"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "random":
                    random_aliases.add(a.asname or "random")
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            for a in node.names:
                assert a.name in RANDOM_OK, f"{path.name}: from random import {a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in random_aliases:
            assert node.attr in RANDOM_OK, \
                f"{path.name}:{node.lineno}: random.{node.attr} uses the global generator"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_purity_no_io_calls(path: Path) -> None:
    """No open(), print(), input() (nor exec/eval) in the core."""
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, \
                f"{path.name}:{node.lineno}: {node.func.id}() in the rules core"


def test_purity_checker_catches_offenders(tmp_path: Path) -> None:
    """The checks above do find what they look for."""
    bad = tmp_path / "bad.py"
    bad.write_text("import random\nfrom dominolab.cli import main\nrandom.shuffle([])\n"
                   "print(open('x'))\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        test_purity_imports_stay_inside_core(bad)
    with pytest.raises(AssertionError):
        test_purity_no_global_randomness(bad)
    with pytest.raises(AssertionError):
        test_purity_no_io_calls(bad)
    good = tmp_path / "good.py"
    good.write_text("import random\nrng = random.Random(1)\nrng.shuffle([])\n",
                    encoding="utf-8")
    test_purity_no_global_randomness(good)


def test_purity_importing_core_does_not_import_upper_layers() -> None:
    """Importing dominolab.core in a fresh interpreter loads no cli or players module."""
    import subprocess
    import sys

    code = ("import sys, dominolab.core; "
            "print(sorted(m for m in sys.modules if m.startswith('dominolab') "
            "and not m.startswith('dominolab.core') and m != 'dominolab'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


PACKAGE = CORE.parent
#: the layers above the core, and what each may import of dominolab (docs/architecture.md)
LAYERS: dict[str, set[str]] = {
    "native": {"core", "native"},
    "players": {"core", "native", "players", "jsonfile"},
    "text": {"core", "text"},
    "processes": {"processes"},
    "jsonfile": {"core"},
    "lab": {"core", "native", "players", "lab", "integrations", "web", "processes",
            "jsonfile"},
    "integrations": {"core", "native", "players", "text", "integrations"},
    "web": {"core", "native", "players", "web", "processes"},
}
#: folders of a layer that may import more than the layer does: the web app's studies run
#: the lab's own simulate and report (docs/architecture.md)
WIDER: dict[str, set[str]] = {"web/studies": {"lab"}}


def _imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return {n for n in found if n.split(".")[0] == "dominolab"}


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layers_import_only_below_them_and_never_cli(layer: str) -> None:
    """Nothing imports ``dominolab.cli`` (it only parses arguments and prints), and each
    layer imports only the layers below it."""
    root = PACKAGE / layer
    paths = sorted(root.rglob("*.py")) if root.is_dir() else [PACKAGE / f"{layer}.py"]
    assert paths and all(p.exists() for p in paths)
    for path in paths:
        for name in _imports_of(path):
            if name == "dominolab":
                continue  # the package itself: its version
            part = name.split(".")[1]
            folder = path.parent.relative_to(PACKAGE).as_posix()
            allowed = LAYERS[layer] | WIDER.get(folder, set())
            assert part in allowed, f"{path.relative_to(PACKAGE)} imports {name}"


WEB = PACKAGE / "web"
#: the rooms of web/ ("web": its top-level modules, such as errors.py) and the rooms each may
#: import (docs/architecture.md): the edge over everything; the community over the content
#: (the puzzles people are rated on); both over the games; the games over the storage; the
#: top-level modules beneath them all. What
#: the games must set off above them (ratings after a rated match) is wired in from the edge.
ROOMS: dict[str, set[str]] = {
    "edge": {"edge", "content", "community", "games", "storage", "studies", "web"},
    "studies": {"studies", "games", "storage", "web"},
    "content": {"content", "games", "storage", "web"},
    "community": {"community", "content", "games", "storage", "web"},
    "games": {"games", "storage", "web"},
    "storage": {"storage", "web"},
    "web": {"web"},
}
def _room_of(path: Path, web: Path) -> str:
    parts = path.relative_to(web).parts
    return parts[0] if len(parts) > 1 else "web"


def _room_violations(web: Path) -> list[str]:
    """Every import of one room of ``web`` by another that :data:`ROOMS` does not allow."""
    found = []
    for path in sorted(web.rglob("*.py")):
        room = _room_of(path, web)
        for name in _imports_of(path):
            parts = name.split(".")
            if parts[:2] != ["dominolab", "web"] or len(parts) < 3:
                continue
            target = parts[2] if parts[2] in ROOMS else "web"
            if target in ROOMS[room]:
                continue
            found.append(f"{path.relative_to(web)} ({room}) imports {name} ({target})")
    return found


def test_web_rooms_are_all_named() -> None:
    """Every folder of web/ with Python in it is a room the arrows below speak of."""
    folders = {p.parent.name for p in WEB.glob("*/*.py")}
    assert folders == set(ROOMS) - {"web"}


def test_web_rooms_import_only_the_rooms_below_them() -> None:
    """No room of web/ imports a room above it: edge -> community -> content -> games ->
    storage, and the top-level modules beneath them all."""
    assert _room_violations(WEB) == []


def test_web_room_checker_catches_an_upward_import(tmp_path: Path) -> None:
    """The check above does find an upward import, and passes a downward one."""
    for room in ("games", "community", "storage"):
        (tmp_path / room).mkdir()
    (tmp_path / "games" / "up.py").write_text(
        "from dominolab.web.community.players import Players\n", encoding="utf-8")
    (tmp_path / "community" / "down.py").write_text(
        "from dominolab.web.games.live import token_hash\n", encoding="utf-8")
    (tmp_path / "storage" / "up.py").write_text(
        "import dominolab.web.games.live\nimport dominolab.web.limits\n", encoding="utf-8")
    assert _room_violations(tmp_path) == [
        "games/up.py (games) imports dominolab.web.community.players (community)",
        "storage/up.py (storage) imports dominolab.web.games.live (games)"]
