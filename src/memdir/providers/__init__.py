"""Providers: the outside models memdir can use, each behind one small interface."""

from .embeddings import Embedder, HashingEmbedder, get_embedder

__all__ = ["Embedder", "HashingEmbedder", "get_embedder"]
