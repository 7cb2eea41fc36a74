"""Where registry files come from: the built-in ones and configured extras.

A project adds its own families the way this repository adds the
multi-turn GRPO extension, in ``pyproject.toml``::

    [tool.metrics-registry]
    extra-registries = ["extensions/multiturn_grpo.yaml"]

Paths are relative to that ``pyproject.toml``. The environment variable
``METRICS_REGISTRY_PATH`` (paths separated by ``os.pathsep``) adds more.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

__all__ = [
    "ENV_VAR",
    "ConfigError",
    "builtin_paths",
    "configured_paths",
    "find_project_config",
    "registry_paths",
]

# Registry files are untrusted input (a pull request). A file is refused
# before parsing when larger than this; the built-in ones are ~0.1 MiB.
MAX_FILE_BYTES = 8 * 1024 * 1024

ENV_VAR = "METRICS_REGISTRY_PATH"
_SECTION = "metrics-registry"


class ConfigError(Exception):
    """The project configuration cannot be used; the message says how to fix it."""


def builtin_paths() -> list[Path]:
    """The registry files shipped inside the package, in a stable order."""
    data = resources.files("metrics_registry") / "data"
    return sorted(Path(str(item)) for item in data.iterdir() if item.name.endswith(".yaml"))


def find_project_config(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.metrics-registry]`` table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except tomllib.TOMLDecodeError as error:
                raise ConfigError(f"{candidate}: invalid TOML ({error}); fix the file") from error
            if _SECTION in data.get("tool", {}):
                return candidate
    return None


def configured_paths(start: Path | None = None) -> list[Path]:
    """Extra registry files named by the project configuration and the environment."""
    paths: list[Path] = []
    config = find_project_config(start)
    if config is not None:
        table = tomllib.loads(config.read_text(encoding="utf-8"))["tool"][_SECTION]
        extras = table.get("extra-registries", [])
        if not isinstance(extras, list) or not all(isinstance(item, str) for item in extras):
            raise ConfigError(f"{config}: [tool.{_SECTION}] extra-registries must be a list of paths")
        paths.extend(config.parent / item for item in extras)
    env = os.environ.get(ENV_VAR, "")
    paths.extend(Path(item) for item in env.split(os.pathsep) if item)
    return paths


def registry_paths(
    extra_paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] = (),
    *,
    include_configured: bool = False,
    builtin: bool = True,
) -> list[Path]:
    """Built-in files, then configured extras, then `extra_paths`, without repeats.

    Here rather than in :mod:`metrics_registry.api`, which imports the models: a command that
    replays its kept output (:mod:`metrics_registry.rendered`) needs the paths, not the models.
    """
    if isinstance(extra_paths, str | os.PathLike):  # one path, not an iterable of its characters
        extra_paths = [extra_paths]
    paths = list(builtin_paths()) if builtin else []
    if include_configured:
        paths.extend(configured_paths())
    paths.extend(Path(p) for p in extra_paths)
    unique: dict[Path, None] = {}
    for path in paths:
        unique.setdefault(path.resolve(), None)
    return list(unique)
