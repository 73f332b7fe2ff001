"""The ``protoxplore`` command line: ``arguments`` (the grammar), ``commands`` (one function per
command, each a few calls to ``protoxplore.service``), ``render`` (tables and JSON)."""
