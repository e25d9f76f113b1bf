"""Labeled subgraph matching (GVSM-style): pruning, order, native search, listing."""
