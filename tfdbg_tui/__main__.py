"""`python -m tfdbg_tui` is the same as the `tfdbg-tui` command."""

import sys

from tfdbg_tui.cli import main

sys.exit(main())
