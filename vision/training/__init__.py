"""vision.training: scripts that train the small models shipped with the vision package."""
