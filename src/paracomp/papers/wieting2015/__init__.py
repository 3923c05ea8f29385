"""wieting2015"""
