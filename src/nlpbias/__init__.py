"""nlpbias: the shared package of the nlpbias book.

Importing it first installs the finder that records the source of every ``nlpbias`` module as it
is imported (:func:`nlpbias.core.closure.install_import_recorder`): the on-disk cache keys a
result by the code this process actually runs.
"""

from nlpbias.core.closure import install_import_recorder

install_import_recorder()
del install_import_recorder

__version__ = "0.1.0"
