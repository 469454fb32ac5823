"""Positions and games in and out: CGP, GCG and pictures of the board."""
