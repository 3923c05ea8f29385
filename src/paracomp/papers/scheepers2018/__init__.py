"""scheepers2018"""
