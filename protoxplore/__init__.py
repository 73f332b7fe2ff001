"""ProtoXplore: why was my Spark query slow, and who slowed it?

Start at ``protoxplore.cli`` (the commands), then ``protoxplore.loader`` (event logs to the
ProtoGraph), ``protoxplore.store`` (the graph database) and ``protoxplore.report`` (explanations).
"""
__version__ = "0.1.0"
