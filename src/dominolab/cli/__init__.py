"""The command line: ``dominolab play | score | replay | bench | games``."""
