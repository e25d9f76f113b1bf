"""pytest plugin for the networkx suite run: records which calls kcjax served or declined.

Loaded with ``-p _count_plugin`` in the subprocess of test_networkx_suite.py; it
writes ``{"served": {name: calls}, "declined": {name: {reason: calls}}}`` as JSON
to the path in ``KCJAX_NX_COUNTS``.
"""

from __future__ import annotations

import collections
import json
import os

served: collections.Counter = collections.Counter()
declined: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


def pytest_configure(config):
    import kcjax.nx as backend

    interface = backend.BackendInterface
    for name in backend.FUNCTIONS:
        impl = getattr(interface, name)

        def counted(*args, _impl=impl, _name=name, **kwargs):
            served[_name] += 1
            return _impl(*args, **kwargs)

        setattr(interface, name, staticmethod(counted))
    can_run = interface.can_run

    def counted_can_run(name, args, kwargs):
        verdict = can_run(name, args, kwargs)
        if verdict is not True:
            reason = verdict if isinstance(verdict, str) else "declined"
            declined[name][reason.split("=")[0]] += 1
        return verdict

    interface.can_run = staticmethod(counted_can_run)


def pytest_sessionfinish(session):
    with open(os.environ["KCJAX_NX_COUNTS"], "w") as f:
        json.dump({"served": dict(served), "declined": declined}, f, indent=1)
