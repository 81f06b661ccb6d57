"""Analyses of simulation datasets: pure functions from tables to tables."""
