"""Compiled page templates, kept between languages and between builds.

Jinja compiles a template to Python the first time an environment loads it;
the site has one environment per language, so every build compiled each
template three times (~0.1 s per language, about a tenth of generating its
pages). Compiled code depends on the environment's options, and one option
differs between languages (``finalize``: Chinese tightens the spacing of
values), so templates are kept per *variant* of the environment: in this
process, and in the user's cache (:mod:`metrics_registry.cache`, the same
private folder and safety rules as the validated registry) for the next
build.

Jinja's own ``FileSystemBytecodeCache`` would keep one file per template in a
folder of its own, outside the cache's key (this package's code and the
Python version) and its pruning; this keeps all of a variant's templates in
one entry of that cache instead.
"""

from __future__ import annotations

import functools

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from metrics_registry import cache

__all__ = ["template_cache"]


class _KeptTemplates(BytecodeCache):
    """The compiled templates of one variant: Jinja checks each against its template's source."""

    def __init__(self, variant: str) -> None:
        self._key = cache.cache_key([], 0, purpose=f"jinja templates|{variant}|{jinja2.__version__}")
        self._compiled: dict[str, bytes] | None = None

    def _all(self) -> dict[str, bytes]:
        if self._compiled is None:
            stored = cache.read(self._key) if self._key is not None else None
            self._compiled = dict(stored) if isinstance(stored, dict) else {}
        return self._compiled

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self._all().get(bucket.key)
        if isinstance(data, bytes):
            bucket.bytecode_from_string(data)  # an outdated entry (other source) resets the bucket

    def dump_bytecode(self, bucket: Bucket) -> None:
        compiled = self._all()
        compiled[bucket.key] = bucket.bytecode_to_string()
        if self._key is not None:
            cache.write(self._key, compiled)


@functools.cache
def template_cache(variant: str) -> BytecodeCache:
    """The bytecode cache shared by every environment of ``variant`` in this process."""
    return _KeptTemplates(variant)
