"""elgohary2016"""
