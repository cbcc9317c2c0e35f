"""The games database's schema, in one place: :data:`MIGRATIONS` holds one script per
version, and a database's version is SQLite's ``user_version`` (PostgreSQL's is a one-row
table, :mod:`dominolab.web.storage.pg`). :meth:`~dominolab.web.storage.database.Database.migrate`
runs the scripts a database lacks, in order, each in its own transaction. Add new versions
at the end; never edit a released one. Write them in the portable subset that
:mod:`dominolab.web.storage.pg` describes, with no semicolon inside a statement.
"""

from __future__ import annotations

from typing import Final

#: schema version N is reached by running MIGRATIONS[N - 1]
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: games and their moves
    """
    CREATE TABLE games (
        id            TEXT PRIMARY KEY,
        game          TEXT NOT NULL,
        options       TEXT NOT NULL,           -- JSON, the engine's option names
        seed          INTEGER NOT NULL,
        first_opener  INTEGER NOT NULL,
        mode          TEXT NOT NULL,           -- 'computer' or 'friend'
        opponent      TEXT,                    -- the computer's level, NULL against a friend
        token0        TEXT NOT NULL,           -- SHA-256 of seat 0's token
        token1        TEXT NOT NULL,           -- SHA-256 of seat 1's token
        rules_version INTEGER NOT NULL,
        created       REAL NOT NULL,
        updated       REAL NOT NULL,
        finished      INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id),
        ply     INTEGER NOT NULL,              -- 0, 1, ... over the whole match
        seat    INTEGER NOT NULL,
        move    TEXT NOT NULL,                 -- full notation
        at      REAL NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    """,
    # 2: one-time invitations (the friend's seat token is minted when the invitation is
    # claimed; until then token1 is '' and matches no token), and an index for expiry
    """
    ALTER TABLE games ADD COLUMN invite TEXT;   -- SHA-256 of the invitation, NULL once claimed
    CREATE INDEX games_by_age ON games(finished, updated);
    """,
    # 3: rematches: a finished game names the one game that is its rematch (the seats keep
    # their tokens there) and the seat that asked for it
    """
    ALTER TABLE games ADD COLUMN rematch TEXT;      -- the rematch's id, NULL until asked for
    ALTER TABLE games ADD COLUMN rematch_by INTEGER; -- the seat that asked for it
    CREATE UNIQUE INDEX games_by_rematch ON games(rematch);
    """,
    # 4: players (a display name and a secret key, no password), the players of a game's
    # seats, and how a finished game ended (so lists need not replay it)
    """
    CREATE TABLE players (
        id       TEXT PRIMARY KEY,
        name     TEXT NOT NULL,
        skeleton TEXT NOT NULL UNIQUE, -- names that look alike are one name (community/names.py)
        key_hash TEXT NOT NULL UNIQUE,     -- SHA-256 of the player's secret key
        created  REAL NOT NULL
    );
    ALTER TABLE games ADD COLUMN player0 TEXT REFERENCES players(id);
    ALTER TABLE games ADD COLUMN player1 TEXT REFERENCES players(id);
    ALTER TABLE games ADD COLUMN winner INTEGER;     -- the seat that won (NULL: drawn, or not over)
    ALTER TABLE games ADD COLUMN points0 INTEGER;    -- the match points at the end
    ALTER TABLE games ADD COLUMN points1 INTEGER;
    ALTER TABLE games ADD COLUMN ended_by TEXT;      -- 'play', or how else it ended ('time')
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;  -- counts for the ratings
    CREATE INDEX games_by_player0 ON games(player0, finished, updated);
    CREATE INDEX games_by_player1 ON games(player1, finished, updated);
    """,
    # 5: ratings (community/ratings.py): a Glicko-2 rating per player and game, each rated match's
    # change to it, and the mark that a finished rated match's changes are applied (set in
    # the same transaction as the new ratings, only if unset, so a match counts once even
    # when several servers see it end)
    """
    CREATE TABLE ratings (
        player     TEXT NOT NULL REFERENCES players(id),
        game       TEXT NOT NULL,
        rating     REAL NOT NULL,
        rd         REAL NOT NULL,               -- the rating deviation
        volatility REAL NOT NULL,
        games      INTEGER NOT NULL,            -- rated matches counted, also its version
        updated    REAL NOT NULL,
        PRIMARY KEY (player, game)
    );
    CREATE INDEX ratings_by_game ON ratings(game, rating);
    CREATE TABLE rating_changes (
        game_id         TEXT NOT NULL,          -- the match (kept after it expires)
        seat            INTEGER NOT NULL,
        player          TEXT NOT NULL REFERENCES players(id),
        game            TEXT NOT NULL,
        rating_before   REAL NOT NULL,
        rating_after    REAL NOT NULL,
        rd_before       REAL NOT NULL,
        rd_after        REAL NOT NULL,
        opponent_rating REAL NOT NULL,          -- what the change was reckoned against
        opponent_rd     REAL NOT NULL,
        at              REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX rating_changes_by_player ON rating_changes(player, at);
    ALTER TABLE games ADD COLUMN ratings_applied INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX games_by_rating_due ON games(rated, finished, ratings_applied);
    """,
    # 6: the lobby. A named player's lobby socket is a row with the server process holding
    # it and that process's last heartbeat (so a process that dies leaves none behind).
    # A seek is owned by one such socket and goes with it. Accepting a seek makes the game
    # and marks the seek with it in one transaction, and the seek stays until its creator's
    # socket has been told. A lobby game has a clock: the seconds each move may take.
    """
    CREATE TABLE lobby_sockets (
        id      TEXT PRIMARY KEY,
        player  TEXT NOT NULL REFERENCES players(id),
        server  TEXT NOT NULL,                 -- the server process holding the socket
        seen    REAL NOT NULL                  -- when that process last said it is alive
    );
    CREATE INDEX lobby_sockets_by_player ON lobby_sockets(player);
    CREATE INDEX lobby_sockets_by_seen ON lobby_sockets(seen);
    CREATE TABLE seeks (
        id           TEXT PRIMARY KEY,
        player       TEXT NOT NULL REFERENCES players(id),
        socket       TEXT NOT NULL,            -- the creator's lobby socket
        game         TEXT NOT NULL,
        options      TEXT NOT NULL,            -- JSON, the engine's option names
        rated        INTEGER NOT NULL,
        move_seconds INTEGER NOT NULL,
        token_hash   TEXT NOT NULL,            -- SHA-256 of the creator's seat token
        created      REAL NOT NULL,
        game_id      TEXT,                     -- the game once accepted, NULL while open
        seat         INTEGER,                  -- the creator's seat in that game
        accepted     REAL,                     -- when it was accepted
        told         INTEGER NOT NULL DEFAULT 0  -- whether its creator has been told
    );
    CREATE INDEX seeks_by_socket ON seeks(socket);
    CREATE INDEX seeks_by_player ON seeks(player, game_id);
    CREATE INDEX seeks_open ON seeks(game_id, game, created);
    ALTER TABLE games ADD COLUMN move_seconds INTEGER;  -- a move's time limit, NULL: none
    CREATE INDEX games_by_clock ON games(finished, move_seconds);
    """,
    # 7: a match is owed to its seek's creator until their page says it has the seat
    # (a message sent proved nothing: a dying socket swallows it). acked is when the page
    # said so, NULL while the match is owed. A match only sent before, whose game is still
    # being played, is owed again. An accepted seek now stays while its game is played (the
    # players' pages derive their seats' tokens from its id)
    """
    ALTER TABLE seeks ADD COLUMN acked REAL;   -- when the creator's page acknowledged it
    UPDATE seeks SET acked = accepted WHERE told = 1 AND game_id NOT IN
        (SELECT id FROM games WHERE finished = 0);
    ALTER TABLE seeks DROP COLUMN told;
    """,
    # 8: facts about the stored data as a whole, by name; `name_keys` says how the players'
    # name keys (players.skeleton) were made, so a server whose way differs makes them again
    # (storage/players.py rekey_players)
    """
    CREATE TABLE facts (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 9: rated matches always end. A rated match against the computer has a clock as a
    # lobby match has; those made before are given the default then (120 s, the lobby's,
    # written out: a released migration never changes), counted from their last move, so
    # one abandoned longer ago ends by time at the first sweep, and counts.
    """
    UPDATE games SET move_seconds = 120
        WHERE finished = 0 AND rated = 1 AND move_seconds IS NULL
    """,
    # 10: what a named player's seat token is derived from, so a page holding only the
    # player's key rejoins the game from any device: a lobby game's seek (both seats), or
    # the game a named player made (its seat 0: computer and friend games). A rematch
    # keeps it, as it keeps the tokens. NULL: the token is random, held by one device.
    # Lobby games made before are given their seek's id
    """
    ALTER TABLE games ADD COLUMN token_from TEXT;   -- a seek's id (lobby) or a game's
    UPDATE games SET token_from = (SELECT s.id FROM seeks s WHERE s.game_id = games.id)
        WHERE mode = 'lobby'
    """,
    # 11: moderation and privacy (docs/web.md, "Moderation and privacy"): a player may be
    # banned (from seeks, pairing and rated matches; off the leaderboard) or forgotten (the
    # name and key gone, the games kept for the opponent); every moderator's action is an
    # audit row; `players_version` counts the actions, so a server on SQLite sees one by
    # reading one row (PostgreSQL's servers are told over the event bus)
    """
    ALTER TABLE players ADD COLUMN banned REAL;       -- when banned, NULL: not banned
    ALTER TABLE players ADD COLUMN ban_reason TEXT;
    ALTER TABLE players ADD COLUMN forgotten REAL;    -- when forgotten, NULL: not forgotten
    CREATE TABLE audit (
        id      TEXT PRIMARY KEY,
        at      REAL NOT NULL,
        by_whom TEXT NOT NULL,                 -- who ran the action
        action  TEXT NOT NULL,                 -- rename, ban, unban, hide-name, forget, export
        player  TEXT NOT NULL,                 -- the player's id
        detail  TEXT NOT NULL,                 -- what changed (JSON), emptied when forgotten
        reason  TEXT NOT NULL                  -- why, as the moderator said it
    );
    CREATE INDEX audit_by_at ON audit(at);
    CREATE INDEX audit_by_player ON audit(player);
    INSERT INTO facts (name, value) VALUES ('players_version', '0')
    """,
    # 12: a player's key on more devices (community/devices.py): a one-time link code
    # (short-lived, claimed once) or the player's one recovery code, each stored as the
    # SHA-256 of the code with the player's key sealed under the code (only the code opens
    # it); `linked` counts the devices a link code was claimed on
    """
    CREATE TABLE player_codes (
        code_hash TEXT PRIMARY KEY,            -- SHA-256 of the code
        player    TEXT NOT NULL REFERENCES players(id),
        kind      TEXT NOT NULL,               -- 'link' (one-time) or 'recovery'
        sealed    TEXT NOT NULL,               -- the player's key sealed under the code (hex)
        created   REAL NOT NULL,
        expires   REAL                         -- a link code's end, NULL: a recovery code
    );
    CREATE INDEX player_codes_by_player ON player_codes(player, kind);
    CREATE INDEX player_codes_by_expiry ON player_codes(expires);
    ALTER TABLE players ADD COLUMN linked INTEGER NOT NULL DEFAULT 0
    """,
    # 13: puzzles (community/puzzles.py): a Glicko-2 puzzle rating per player and game, and
    # each puzzle's rating (a row once first tried; until then the rating it was shipped
    # with), and each player's first try at a puzzle, the one that was rated (a second try
    # is shown, not rated, and not stored). `tries` counts the rated tries: also the row's
    # version, so a change reckoned from an older row is refused
    """
    CREATE TABLE puzzle_players (
        player     TEXT NOT NULL REFERENCES players(id),
        game       TEXT NOT NULL,
        rating     REAL NOT NULL,
        rd         REAL NOT NULL,
        volatility REAL NOT NULL,
        tries      INTEGER NOT NULL,
        solved     INTEGER NOT NULL,
        updated    REAL NOT NULL,
        PRIMARY KEY (player, game)
    );
    CREATE TABLE puzzle_ratings (
        puzzle     TEXT NOT NULL,               -- the puzzle's id (luzak-0042)
        game       TEXT NOT NULL,
        rating     REAL NOT NULL,
        rd         REAL NOT NULL,
        volatility REAL NOT NULL,
        tries      INTEGER NOT NULL,
        solved     INTEGER NOT NULL,
        updated    REAL NOT NULL,
        PRIMARY KEY (game, puzzle)
    );
    CREATE TABLE puzzle_tries (
        player          TEXT NOT NULL REFERENCES players(id),
        game            TEXT NOT NULL,
        puzzle          TEXT NOT NULL,
        move            TEXT NOT NULL,          -- the move the player answered
        solved          INTEGER NOT NULL,
        rating_before   REAL NOT NULL,          -- the player's puzzle rating
        rating_after    REAL NOT NULL,
        puzzle_before   REAL NOT NULL,          -- the puzzle's rating
        puzzle_after    REAL NOT NULL,
        at              REAL NOT NULL,
        PRIMARY KEY (player, game, puzzle)
    )
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)

def statements(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside them)."""
    return [s.strip() for s in script.split(";") if s.strip()]
