"""``python -m protoxplore.cli``: the ``protoxplore`` command."""
import sys

from protoxplore.cli.commands import main

sys.exit(main())
