"""One package per chapter of the book: its method, its stand-in data, its tables and figures.

``nlpbias.studies.<study>`` is what the chapter's notebook calls. A study never imports
another study; what two studies need lives in a shared layer (``data``, ``metrics``,
``models``, ``plotting``, ``core``).
"""
