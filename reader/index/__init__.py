"""The columnar index of one run: tables of executions, outputs and traces; graphs; frames."""
