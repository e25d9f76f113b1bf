"""networkx's own tests that cannot pass through the kcjax backend, with the reason.

Keys are pytest node ids below the module (``Class::test`` or ``test``); the
backend's ``on_start_tests`` hook marks them xfail (strict) when networkx's
suite runs with ``NETWORKX_TEST_BACKEND=kcjax``.
"""

from __future__ import annotations

XFAIL: dict[str, str] = {}
