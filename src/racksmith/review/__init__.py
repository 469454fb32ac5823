"""Looking back at a recorded game: replaying it and analysing every turn."""
