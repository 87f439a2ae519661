"""What every app shares, below all of them: the base of domain errors, publishing after
commit, and telling an unavailable database or Redis from a bug. Imports nothing of the
project."""
