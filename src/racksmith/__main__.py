"""``python -m racksmith``: the command line, as the ``racksmith`` script runs it."""
from .cli.main import run

if __name__ == "__main__":
    run()
