"""nlpbias: the shared package of the nlpbias book."""

__version__ = "0.1.0"
