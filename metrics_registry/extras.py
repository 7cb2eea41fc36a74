"""Which extra installs a missing library, so that a command can say what to install.

The core install is small (pyproject.toml); a command that needs an extra's
library imports it when it runs. When that import fails, the command stops
with one line naming the extra (``pip install 'metrics-registry[encoding]'``)
instead of a traceback: :func:`missing_extra_message` is called by the CLI's
entry point for every command.
"""

from __future__ import annotations

__all__ = ["EXTRA_OF", "USERS_OWN", "missing_extra_message"]

#: Top-level module -> the extra that installs it (pyproject.toml's optional-dependencies).
EXTRA_OF: dict[str, str] = {
    "babel": "i18n",
    "jinja2": "i18n",
    "ruamel": "author",
    "markupsafe": "encoding",
    "ftfy": "encoding",
    "jieba": "encoding",
    "wordfreq": "encoding",
    "opencc": "encoding",
    "metrics_registry_zh_models": "encoding",  # packages/zh-models, the Chinese word counts
    "nh3": "docs",
    "selectolax": "docs",
    "mkdocs": "docs",
    "markdown": "docs",
    "pymdownx": "docs",
    "material": "docs",
    "mkdocstrings": "docs",
    "tensorboard": "runs",
    "watchdog": "live",
    "kenlm": "zh-lm",
    "torch": "torch",
    "numpy": "torch",  # listed in the extra: torch's wheels do not depend on it
    "pylatexenc": "formulas",
}


#: Imported only by integrations with a library the user's own training (or test run) already
#: has (metrics_registry.integrations.transformers, the conformance kit's TRL adapter and its
#: pytest plugin, loaded by pytest itself): no extra of ours installs it.
USERS_OWN = frozenset({"transformers", "wandb", "trl", "pytest"})


def missing_extra_message(error: ModuleNotFoundError) -> str | None:
    """The one-line fix for ``error`` when an extra installs the missing module, else ``None``."""
    top = (error.name or "").partition(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return (
        f"this command needs {top}, which the '{extra}' extra installs: "
        f"pip install 'metrics-registry[{extra}]'"
    )
