"""The ``racksmith`` command line: one module per command group, wired in :mod:`racksmith.cli.main`."""
