"""The built book as a reader's browser sees it: ``make check-site``, ``python -m tools.sitecheck``.

A quality tool for the site under ``_build/html``, kept out of the importable ``nlpbias`` package
(a reader who installs the package gets no browser driver). :func:`check_site` runs the static
checks of the HTML files (:mod:`~tools.sitecheck.check`, on the site model of
:mod:`~tools.sitecheck.pages`) and, with headless Chromium, the browser checks
(:mod:`~tools.sitecheck.browser`, with the column-width measurement of
:mod:`~tools.sitecheck.columns`); :func:`compare_sites` (:mod:`~tools.sitecheck.compare`) checks
that two builds (``demo`` and ``paper``) have the same structure.
"""

from tools.sitecheck.browser import find_chromium
from tools.sitecheck.check import SiteReport, check_site
from tools.sitecheck.compare import compare_sites
from tools.sitecheck.pages import SiteCheckError

__all__ = ["SiteCheckError", "SiteReport", "check_site", "compare_sites", "find_chromium"]
