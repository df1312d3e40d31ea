"""The charts kprofile draws: pure functions from plain data (numpy arrays, labels,
titles) to matplotlib figures and PNG bytes (``canvas``), one module per kind of
picture. Nothing here reads a file, a mode or the command line.
"""
