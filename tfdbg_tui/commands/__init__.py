"""The command-line commands: open (the TUI), run, demo and report."""
