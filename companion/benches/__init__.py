"""companion.benches: one module per bench target (add_arguments, run)."""
