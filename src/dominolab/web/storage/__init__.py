"""Storage: the one source of truth (SQLite or PostgreSQL) and the events that cross between
server processes."""
