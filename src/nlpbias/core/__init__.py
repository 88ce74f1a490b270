"""The core: paths, argument checks, the cache, seeds, progress bars, sweeps and tokenisation.

Every other layer may import the core; the core imports nothing else from :mod:`nlpbias`.
"""
