"""Suite-wide settings: a private lexicon cache, the fixtures directory, and the hypothesis
profiles: ``HYPOTHESIS_PROFILE=ci`` (what ``.ci/run`` sets) runs every property test on the same
derandomized examples, so that CI fails only when the code changed."""
import os
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
