"""Cython compiler directives shared by setup.py and dev/build_ext.py."""
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}
