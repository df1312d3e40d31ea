"""What the commit holds, as git says it: the one place that reads git.

A hook run judges the commit, and the commit is what git has staged, whatever the
hook runner passes or filters. Every question put to git lives here:

- ``git``: running git itself (NUL-separated names, one clean error per failure);
- ``index``: the index's entries, blobs and staged changes;
- ``names``: the names a registry's paths have in the index (links on the way);
- ``check``: whether the commit holds every registered file, and why not;
- ``snapshot``: the commit a hook run judges (the registry as staged, ``IndexFiles``);
- ``changed``: what the commit changes (the index against HEAD and each parent of a
  merge), whatever the runner passes;
- ``since``: what changed since a revision (``--since``);
- ``touched``: the one rule of which tables a change touches (links, formatters);
- ``formatconfig``: whether a formatter's configuration on disk is the commit's;
- ``runner``: what the hook runner passes (a hook's options and file names).

Nothing is imported here: a hook run that touches no table loads only the modules
it uses.
"""
