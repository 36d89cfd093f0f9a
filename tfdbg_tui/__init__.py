"""tfdbg-tui: a keyboard-driven terminal debugger for tfdbg2 logdirs."""

__version__ = "0.1.0"
