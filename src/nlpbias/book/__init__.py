"""The book machinery: the papermill runner, the Jupyter Book build, the CLI, the Sphinx
extension, the site checks (static and in a browser) and the comparison of two builds.

Science code (``core``, ``data``, ``metrics``, ``models``, ``plotting``, ``studies``) never
imports this package.
"""
