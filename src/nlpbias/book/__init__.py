"""The book machinery: the papermill runner, the Jupyter Book build, the CLI and the Sphinx
extension. The checks of the built site are a tool of the project (``tools/sitecheck``, run by
``make check-site``), not part of this package.

Science code (``core``, ``data``, ``metrics``, ``models``, ``plotting``, ``studies``) never
imports this package.
"""
