"""A progress display for long runs (matches, training): a Rich bar on a terminal, else a line on
stderr every half minute (for runs logging to a file)."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from .common import err_console, note


@contextmanager
def games_progress(every: float = 30.0) -> Iterator[Callable[[str, int, int], None]]:
    """Yields ``update(label, done, total)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    start = time.monotonic()
    if err_console.is_terminal:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err_console, transient=True, auto_refresh=False) as bar:
            tasks: dict[str, int] = {}
            last = [0.0]

            def update(label: str, done: int, total: int) -> None:
                if label not in tasks:
                    tasks[label] = bar.add_task(label, total=total)
                now = time.monotonic()
                if now - last[0] >= 0.1 or done >= total:
                    last[0] = now
                    bar.update(tasks[label], completed=done, total=total, refresh=True)

            yield update
        return
    state = {"label": None, "t": start, "done": 0, "t0": start}

    def log(label: str, done: int, total: int) -> None:
        now = time.monotonic()
        if label != state["label"]:  # the first call of a stage sets where its rate counts from
            state.update(label=label, t0=now, done0=done, t=now)
        if now - state["t"] >= every or (done >= total and now > state["t0"]):
            state["t"] = now
            rate = (done - state.get("done0", 0)) / max(now - state["t0"], 1e-9)
            note(f"{time.strftime('%H:%M:%S')} {label}: {done:,}/{total:,} games ({rate:.1f} games/s)")

    yield log
