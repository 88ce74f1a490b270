"""Extrinsic tasks on frozen embeddings."""
