"""vision package of Catan Companion."""
