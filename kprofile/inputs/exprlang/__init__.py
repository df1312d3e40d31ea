"""The expression language behind ``kprofile.inputs.expr``, one concern per module."""
