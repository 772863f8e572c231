"""firmware_bridge package of Catan Companion."""
