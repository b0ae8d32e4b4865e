"""Runs: match ranges, chunks, backends (local or Dask), the run driver and each experiment."""
