"""Long tables on stdout: written by racksmith.cli.plaintable in linear time, character for
character what Rich writes (the oracle), and by Rich for any shape it does not take."""
from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from racksmith.cli import common
from racksmith.cli.main import app
from racksmith.cli.plaintable import plain_lines
from typer.testing import CliRunner

# ASCII, Latin and Cyrillic letters, letters two cells wide, spaces and the brackets of moves
CHARS = "abcXYZ019 ?().éЁжщ中文"


def rich_text(table: Table) -> str:
    """What ``say_table`` printed through Rich to a file: the table as wide as it needs."""
    probe = Console(file=io.StringIO(), width=80, emoji=False)
    needed = Measurement.get(probe, probe.options.update_width(1 << 20), table).maximum
    out = io.StringIO()
    Console(file=out, width=max(80, needed), emoji=False, color_system=None).print(
        table, highlight=False, markup=False, soft_wrap=True)
    return out.getvalue()


words = st.text(alphabet=CHARS, max_size=12)


@st.composite
def tables(draw) -> Table:
    title = draw(st.one_of(st.none(), st.text(alphabet=CHARS, min_size=1, max_size=90)))
    if title is not None and draw(st.booleans()):
        title = Text(title)
    table = Table(title=title, title_justify="left", show_edge=False, show_header=draw(st.booleans()))
    n = draw(st.integers(1, 5))
    for _ in range(n):
        table.add_column(draw(st.text(alphabet=CHARS, min_size=1, max_size=8)),
                         justify=draw(st.sampled_from(["left", "right", "center"])))
    for _ in range(draw(st.integers(0, 6))):
        table.add_row(*[Text(w) if draw(st.booleans()) else w for w in draw(st.lists(words, min_size=n, max_size=n))])
    return table


@settings(max_examples=300, deadline=None)
@given(tables())
def test_plain_tables_are_what_rich_writes(table):
    lines = plain_lines(table)
    if lines is None:  # only a column with nothing to show is left to Rich
        assert any(not table.show_header and all(str(c) == "" for c in col._cells) for col in table.columns)
        return
    assert "".join(line + "\n" for line in lines) == rich_text(table)


def test_other_shapes_are_left_to_rich():
    def table(**kw) -> Table:
        t = Table(title="t", title_justify=kw.pop("title_justify", "left"), show_edge=kw.pop("show_edge", False), **kw)
        t.add_column("a")
        return t

    assert plain_lines(table()) == ["t", " a ", "━━━"]
    for t in (table(show_edge=True), table(title_justify="center"), table(show_lines=True), table(caption="c")):
        assert plain_lines(t) is None
    for cell in ("[bold]x[/bold]", Text("x", style="bold"), Text("two\nlines"), "a\tb", Table()):
        t = table()
        t.add_row(cell)
        assert plain_lines(t) is None, cell


def test_a_long_move_list_is_the_same_text_as_through_rich(monkeypatch):
    """15,000 moves took 7 s to print through Rich (10^5 a minute), their JSON 0.6 s."""
    cgp = "15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 ES?AIRT/ 0/0 0"
    runner = CliRunner()
    fast = runner.invoke(app, ["moves", cgp, "-n", "300"])
    monkeypatch.setattr(common, "FAST_ROWS", 10**9)
    slow = runner.invoke(app, ["moves", cgp, "-n", "300"])
    assert fast.exit_code == slow.exit_code == 0
    assert fast.stdout == slow.stdout and fast.stdout.count("\n") == 303
