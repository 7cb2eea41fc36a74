"""Everything ``metrics-registry validate`` checks in a project, each part cached by its inputs.

The registry (:func:`metrics_registry.api.validate`), every text file
(registry YAML, docs pages, catalogs: mojibake, MR140) and the catalogs'
translation QA are checked; each result is kept in the user's cache
(:mod:`metrics_registry.cache`) under the content of the files it read, so a
second ``validate`` re-checks only what changed: a docs page edited is the
only page scanned again, and the encoding models are not even loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from metrics_registry import cache
from metrics_registry.config import MAX_FILE_BYTES
from metrics_registry.findings import Finding

if TYPE_CHECKING:
    from metrics_registry.registry import Registry

__all__ = ["validate_project"]


def _text_file_findings(paths: Iterable[Path]) -> list[Finding]:
    def check(path: Path) -> list[Finding]:
        from metrics_registry.textfiles import check_text_files

        return check_text_files([path])

    findings: list[Finding] = []
    for path in paths:
        key = cache.cache_key([path], MAX_FILE_BYTES, purpose="text-file")
        findings.extend(cache.memo(key, lambda path=path: check(path)))  # type: ignore[misc]
    return findings


def _catalog_findings(root: Path, registry_files: list[Path]) -> list[Finding]:
    from metrics_registry.i18n import i18n_dir

    def check() -> list[Finding]:
        from metrics_registry.i18n.qa import check_catalogs

        return check_catalogs(root)

    inputs = sorted(path for path in i18n_dir(root).rglob("*") if path.is_file() and path.suffix != ".mo")
    # the registry's files count too: a catalog is checked against what it translates
    key = cache.cache_key([*inputs, *registry_files], MAX_FILE_BYTES, purpose="catalogs")
    return cache.memo(key, check)


def validate_project(
    extra: Iterable[Path], *, use_config: bool, translations: bool
) -> tuple[Registry, list[Finding]]:
    """The registry and its findings; with ``translations``, the project's text files and catalogs too."""
    from metrics_registry.api import registry_paths, validate

    registry, findings = validate(list(extra), include_configured=use_config)
    if not translations:
        return registry, findings
    files = registry_paths(list(extra), include_configured=use_config)
    registry_files = list(files)
    if use_config:
        from metrics_registry.config import find_project_config
        from metrics_registry.textfiles import project_text_files

        config = find_project_config()
        if config is not None:
            files += list(project_text_files(config.parent))
        if config is not None and (config.parent / "i18n").is_dir():
            findings.extend(_catalog_findings(config.parent, registry_files))
    # a device or a pipe given as a registry file is already reported by the loader (MR106)
    findings.extend(_text_file_findings(path for path in files if path.is_file()))
    return registry, findings
