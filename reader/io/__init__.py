"""Reading tfdbg2 files: TFRecord framing, finding a run's files, re-reading full records."""
