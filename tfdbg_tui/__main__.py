"""`python -m tfdbg_tui` is the same as the `tfdbg-tui` command."""

import sys

try:
    from tfdbg_tui.cli import main
except KeyboardInterrupt:  # Ctrl-C while Python was still loading the command: no traceback
    sys.exit(130)

sys.exit(main())
