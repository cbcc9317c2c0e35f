"""Players among themselves: names, the lobby's seeks and pairings, and ratings."""
