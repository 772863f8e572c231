"""vision.synth: the synthetic renderer of boards, chips and pieces, with ground truth."""
