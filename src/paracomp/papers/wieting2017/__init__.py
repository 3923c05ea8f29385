"""wieting2017"""
