"""Graph traversal: breadth-first search (Enterprise-style on the GPU).

Named ``traversal`` because ``kcjax.bfs`` is the public function.
"""
