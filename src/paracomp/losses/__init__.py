"""What training minimises: scores between composed segments, negative samplers, objectives."""
