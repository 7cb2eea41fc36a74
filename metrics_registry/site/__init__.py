"""The documentation site: pages generated from the registry, then MkDocs."""
