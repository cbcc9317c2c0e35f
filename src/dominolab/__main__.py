"""``python -m dominolab``: the same as the ``dominolab`` command."""

import sys

from dominolab.cli.main import main

sys.exit(main())
