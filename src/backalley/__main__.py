"""``python -m backalley``: the same as the ``backalley`` command."""

from backalley.cli import main

raise SystemExit(main())
