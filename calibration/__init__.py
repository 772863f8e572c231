"""calibration package of Catan Companion."""
