"""Playing games: the game state, players, and self-play series."""
