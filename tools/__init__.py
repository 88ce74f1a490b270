"""The project's own tools: not part of the importable ``nlpbias`` package, never installed."""
