"""Python's cycle collector, paused while a document is repaired.

A repair makes millions of short-lived tuples (tokens, states and edges of
the decoder's search, units, readings) and no reference cycles: reference
counting frees them all. The cycle collector does not know that: every 700
new container objects set off a collection of the young ones, and now and
then of all of them, which cost a fifth to a quarter of the repair's CPU
time on Chinese (benchmarks/lossy.py). Paused, it runs once when the repair
ends (by its own thresholds, at the next allocation), and finds nothing.

The switch is process-wide: another thread's cyclic garbage made meanwhile
waits until then too. A caller that paused the collector itself keeps it
paused (:func:`paused` then changes nothing).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cycle collector inside the ``with`` block, unless it is paused already."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
