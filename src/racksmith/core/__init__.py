"""Positions and moves: the move value, the position, the bag, scoring and validation."""
