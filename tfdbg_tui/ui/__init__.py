"""The Textual user interface: the app, the main screen and its panes, dialogs, inspector."""
