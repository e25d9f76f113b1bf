"""Exceptions that more than one family raises."""

from __future__ import annotations


class ListingOverflowError(RuntimeError):
    """More results exist than the capacity an eager listing was given.

    Raised by :func:`kcjax.list_cliques` (k-cliques) and
    :func:`kcjax.find_embeddings` (embeddings) instead of truncating; under
    ``jax.jit`` both return an overflow flag instead. Exported as
    ``kcjax.ListingOverflowError``.
    """
