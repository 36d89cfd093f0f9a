"""Textual-free application logic: the state and queries the panes show, value loading,
and the one sanitizer for untrusted strings."""
