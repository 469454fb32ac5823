"""``racksmith match``: paired games between two players, the strength benchmark."""
from __future__ import annotations

from typing import Optional

import typer

from .common import emit_json, say

SPEC_HELP = ("Player spec KIND[:key=value,...]: equity (the ruleset's shipped leaves), equity:leaves=FILE, "
             "equity:leaves=none, score, sim:candidates=10,plies=2,iterations=200 (Monte Carlo simulation), "
             "endgame (static equity, the exact solver once the bag is empty).")


def register(app: typer.Typer) -> None:
    @app.command("match")
    def match_cmd(
        p1: str = typer.Option(..., "--p1", help="Player 1: " + SPEC_HELP),
        p2: str = typer.Option(..., "--p2", help="Player 2: " + SPEC_HELP),
        games: int = typer.Option(..., "--games", "-n", help="Games to play, an even number (both seats of each tile order)."),
        seed: int = typer.Option(0, "--seed", "-s", help="Seed: pair p draws its bag from (seed, p)."),
        ruleset: str = typer.Option("english", "--ruleset", "-r", help="Ruleset name or file."),
        lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help="Lexicon [default: the ruleset's]."),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1,
                                 help="Worker processes (or Ray CPUs); results do not depend on it."),
        backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
        address: Optional[str] = typer.Option(None, "--address", help="Ray cluster to join ('auto' or host:port) [default: start one]."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
    ) -> None:
        """Play paired games between two players and report wins, draws, the win rate with its 95%
        (Wilson) interval and the mean spread."""
        from ..play.backends import MAX_GAMES
        from ..play.match import match
        from .progress import games_progress

        if not 2 <= games <= MAX_GAMES or games % 2:
            raise typer.BadParameter(f"must be an even number from 2 to {MAX_GAMES:,} (games are played in pairs), "
                                     f"got {games}", param_hint="--games")
        with games_progress() as update:
            result = match(p1, p2, games, seed=seed, ruleset=ruleset, lexicon=lexicon, jobs=jobs, backend=backend,
                           address=address, progress=lambda done: update("match", done, games))
        d = result.to_dict()
        if as_json:
            emit_json(d)
            return
        for name, spec in (("p1", result.p1_spec), ("p2", result.p2_spec)):
            s = d[name]
            say(f"{name} {spec}: {s['wins']} wins, {s['losses']} losses, {s['draws']} draws; win rate "
                f"{100 * s['win_rate']:.2f}% (95% CI {100 * s['ci95'][0]:.2f}-{100 * s['ci95'][1]:.2f}%), "
                f"mean spread {s['mean_spread']:+.2f}")
        say(f"{d['games']} games ({d['pairs']} pairs) in {d['seconds']:.1f} s")
