"""ProtoXplore: why was my Spark query slow, and who slowed it?

The package in layers, each importing only those below it (``tests/test_architecture.py`` checks):

- interfaces: ``protoxplore.cli`` (the commands) and ``protoxplore.webapp`` (the explorer);
  ``protoxplore.evaluation`` (harnesses and the workload simulator) beside them;
- application: ``protoxplore.service``, the questions both interfaces ask, answered once;
- storage: ``protoxplore.storage``, the graph database, the life of an analysis in it, the writer;
- domain: ``protoxplore.loader``, event logs to the ProtoGraph, the what-if replay, Hound, PerfXplain;
- base: ``protoxplore.settings``, ``protoxplore.errors``, ``protoxplore.text``, ``protoxplore.show``.
"""
__version__ = "0.1.0"
