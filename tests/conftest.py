"""Suite-wide settings: a private lexicon cache, and the fixtures directory."""
import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

# Compiled lexicons go to a cache inside the checkout (ignored by git), never the user's own cache.
# xdist workers share it; the lexicon layer writes cache files atomically.
os.environ.setdefault(
    "RACKSMITH_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "racksmith-cache")
)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
