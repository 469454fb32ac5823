"""Suite-wide settings: a private lexicon cache, the fixtures directory, and the hypothesis
profiles: ``HYPOTHESIS_PROFILE=ci`` (what ``.ci/run`` sets) runs every property test on the same
derandomized examples, so that CI fails only when the code changed."""
import contextlib
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

FIXTURES = Path(__file__).parent / "fixtures"

# Compiled lexicons go to a cache inside the checkout (ignored by git), never the user's own cache.
# xdist workers share it; the lexicon layer writes cache files atomically.
os.environ.setdefault(
    "RACKSMITH_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "racksmith-cache")
)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@contextlib.contextmanager
def switching_often(interval: float = 1e-6):
    """Inside, CPython hands the GIL from thread to thread every ``interval`` seconds (5 ms by
    default), so that a race between a check and what it guards shows in a few calls."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def with_time_penalty(gcg: str, points: int) -> str:
    """The record with a time penalty of ``points`` for the first player after his first turn (every
    later running total of his lowered by as much)."""
    out, nick = [], None
    for line in gcg.splitlines():
        if line.startswith(">") and nick is None:
            nick = line.split(":")[0]
            out.append(line)
            rack, total = line.split()[1], int(line.split()[-1])
            out.append(f"{nick}: {rack} (time) -{points} {total - points}")
            continue
        if nick is not None and line.startswith(nick + ":"):
            f = line.split()
            f[-1] = str(int(f[-1]) - points)
            line = " ".join(f)
        out.append(line)
    return "\n".join(out) + "\n"


def run_cli(capsys, *args):
    """The command line in this process (arguments as text): its exit code, stdout and stderr,
    never a traceback. Test modules take it as ``from conftest import run_cli as run``."""
    from racksmith.cli.main import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (Linux: a zombie, ended but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def played_out_gcg(tmp_path: Path, ruleset: str, players: int, seed: int):
    """A game of ``players`` best-equity bots played to the end through their views, and the GCG
    file in ``tmp_path`` it is written to: ``(game, path)``."""
    from racksmith import BestEquityPlayer, Game, GameView

    game = Game(ruleset, players=players, seed=seed)
    bot, view = BestEquityPlayer(), GameView(game)
    while not game.over:
        game.play(bot.choose(view))
    path = tmp_path / f"{ruleset}-{players}-{seed}.gcg"
    path.write_text(game.gcg(), encoding="utf-8")
    return game, path
