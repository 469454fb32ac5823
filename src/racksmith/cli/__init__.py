"""The ``racksmith`` command line: one module per command group, wired in :mod:`racksmith.cli.main`."""
from .._interrupt import quiet_interrupt_at_start

# a Ctrl-C while the command's modules are imported, before cli.main.run handles it: exit 130, no
# traceback (only in the racksmith command itself: another program's hook is its own)
quiet_interrupt_at_start()
