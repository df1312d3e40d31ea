"""Writing manifests (``-o``) and editing curated ones in place (``--update``),
byte-exact and readable by ``tuning-codegen``."""
