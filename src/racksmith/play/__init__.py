"""Playing games: the game state, players, player specs, self-play series and paired matches."""
from .match import MatchResult, match
from .specs import PlayerSpec, PlayerSpecError, parse_player_spec, register_player_kind

__all__ = ["MatchResult", "PlayerSpec", "PlayerSpecError", "match", "parse_player_spec", "register_player_kind"]
