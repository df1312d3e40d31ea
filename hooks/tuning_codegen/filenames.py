"""A file's name as text and as the operating system takes it: one conversion each way.

The OS names files with bytes, which Python hands over and takes back decoded with
the file system's encoding (``os.fsdecode``): the command line, ``os.getcwd()``,
``os.readlink()``, the names git prints with ``-z``. A path written in a file (a
registry's YAML, read as UTF-8) is text, and the bytes of that name on disk are its
UTF-8 bytes, as git and every editor write them. In a UTF-8 locale the two strings
are the same; in a Latin-1 locale, or the C locale without Python's UTF-8 mode,
``python/日本.py`` is ``python/æ\\x97¥æ\\x9c¬.py`` or a run of surrogates to the OS,
and the text itself cannot even be encoded for a system call.

So every path inside the code generator is in the OS's form: text that names a file
becomes it once, where it is read (``os_name``), and a name goes back to text only to
be shown (``text_name``, which ``printable.quote_path`` applies). Standard library
only: the hook's no-op path imports this.
"""

from __future__ import annotations

import codecs
import os
import sys

# Whether the OS's form of a name is its UTF-8 text already (a UTF-8 locale, or
# Python's UTF-8 mode): then both conversions keep the string as it is.
_UTF8 = codecs.lookup(sys.getfilesystemencoding()).name == "utf-8"


def os_name(text: str) -> str:
    """The name written as ``text`` (UTF-8 on disk) as the OS functions take it.
    Raises ``UnicodeEncodeError`` for a character no file name holds (a lone
    surrogate that stands for no byte)."""
    if text.isascii():
        return text
    data = text.encode("utf-8", "surrogateescape")
    return text if _UTF8 else os.fsdecode(data)


def text_name(name: str) -> str:
    """The name the OS gave as ``name`` (``os_name``'s form) as text: its bytes read
    as UTF-8, any byte that is not UTF-8 kept as ``os.fsdecode`` keeps it under UTF-8
    (``\\udcXX``). A string the OS could not have given is text already: kept."""
    if _UTF8 or name.isascii():
        return name
    try:
        data = os.fsencode(name)
    except UnicodeEncodeError:
        return name
    return data.decode("utf-8", "surrogateescape")
