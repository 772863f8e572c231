"""companion.commands: one module per CLI command (add_arguments, run)."""
