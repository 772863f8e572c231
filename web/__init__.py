"""web package of Catan Companion."""
