"""``python -m memdir.cli`` runs the ``memdir`` command."""

import sys

from . import main

sys.exit(main())
