"""kprofile: analyze kbench autotuning results and write tuning manifests."""
