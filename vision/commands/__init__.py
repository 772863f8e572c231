"""vision.commands: the read-board and read-chip commands."""
