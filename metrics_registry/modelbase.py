"""The base of every registry model, and release ranges.

Kept apart from :mod:`metrics_registry.models` so that the parts of a metric
defined in their own modules (:mod:`metrics_registry.conditions`,
:mod:`metrics_registry.semantics`) can use them without an import cycle.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["VERSION_PATTERN", "Model", "Version", "VersionRange"]

#: A release number as registry files write it: ``0.17.0`` or ``1.2``. Each part is
#: bounded, so that no file can make a release comparison convert a huge integer.
VERSION_PATTERN = r"^\d{1,9}\.\d{1,9}(\.\d{1,9})?$"

Version = Annotated[str, Field(pattern=VERSION_PATTERN)]


class Model(BaseModel):
    """Frozen, and unknown fields are errors: a typo is reported with its line, never ignored.

    Validators are built on first use (``defer_build``): a command that reads a cached registry
    never pays for building them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=True, defer_build=True)


class VersionRange(Model):
    """Releases ``introduced <= v < removed`` (of TRL, or of the project a family names)."""

    introduced: Version = Field(description="First release concerned, e.g. '0.11.0'.")
    removed: Version | None = Field(
        default=None,
        description="First release no longer concerned; empty while it still is.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> VersionRange:
        from packaging.version import Version as Release

        if self.removed is not None and Release(self.removed) <= Release(self.introduced):
            raise ValueError(
                f"'removed' ({self.removed}) must be later than 'introduced' ({self.introduced})"
            )
        return self

    def contains(self, version: str) -> bool:
        """Whether ``version`` (e.g. ``"0.7.10"``) is in the range."""
        from packaging.version import Version as Release

        v = Release(version)
        if v < Release(self.introduced):
            return False
        return self.removed is None or v < Release(self.removed)

    def overlaps(self, other: VersionRange) -> bool:
        """Whether some release is in both ranges."""
        from packaging.version import Version as Release

        starts = max(Release(self.introduced), Release(other.introduced))
        ends = [Release(r) for r in (self.removed, other.removed) if r is not None]
        return not ends or starts < min(ends)

    def text(self, who: str = "TRL") -> str:
        """``TRL ≥ 0.17.0, < 1.13.0`` or ``TRL ≥ 0.17.0``."""
        if self.removed:
            return f"{who} ≥ {self.introduced}, < {self.removed}"
        return f"{who} ≥ {self.introduced}"
