"""Supervised similarity training (objective ``supervised``): a composer trained end to end
under Tai et al.'s (2015) similarity head on scored sentence pairs."""
