"""The analysis every mode shares: the metric and its ratios, column roles, ranking,
selection, the common config, and per-(shape, config) measurement."""
