"""The Chinese word counts that metrics-registry's encoding repairer mixes into its language model.

A distribution of their own (installed by ``metrics-registry[encoding]``), so
that the core install, which only reads the registry, does not carry them:

- ``zh-domain.json.gz``: the project's own Chinese catalogs and pages, written by
  ``metrics-registry i18n domain-model``;
- ``zh-messages.json.gz``: the Chinese translations of programs' messages,
  written by ``benchmarks/lossy_field.py``.

:mod:`metrics_registry.encoding.domain` reads the files from :data:`DATA`.
"""

from pathlib import Path

#: The folder that holds the counts.
DATA = Path(__file__).resolve().parent
