"""One module per kprofile mode: the per-file views, --diff, --merge, -c, --cover,
--importance and --update. Each turns loaded results into report sections."""
