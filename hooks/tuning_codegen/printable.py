"""What may reach a terminal, a log or a source file, for both tools: one definition.

- ``LINE_BREAKS``: every character ``str.splitlines`` ends a line at.
- ``CONTROLS``: the C0 and C1 control characters (tab and line breaks apart).
- ``INVISIBLE``: characters that are invisible or change the direction of the text
  around them: Unicode's format category (Cf: the bidirectional controls and marks,
  the Arabic letter mark, zero-width spaces and joiners, the word joiner, the BOM,
  interlinear annotations, ...) in every Unicode version Python 3.10-3.13 knows, and
  the whole tag block U+E0000-U+E007F ("Trojan Source" and look-alike text).
- A GitHub Actions log obeys a workflow command in any line whose first non-blank
  characters are ``::`` (``::warning file=x::...``) and the older ``##[command]``
  form anywhere in a line; ``escape_commands`` breaks both.

``one_line`` and ``quote_path`` are how every string from an input is printed;
``UNSAFE_IN_SOURCE`` is what the code generator refuses to write into a source file.
Standard library only (``re``, which PyYAML imports anyway, and ``filenames``): the
hook's no-op path imports this.
"""

from __future__ import annotations

import re

from tuning_codegen.filenames import text_name

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
CONTROLS = frozenset(
    chr(c)
    for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))
    if chr(c) not in LINE_BREAKS and chr(c) != "\t"
)
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE007F),
)  # fmt: skip
INVISIBLE = frozenset(chr(c) for a, b in _INVISIBLE_RANGES for c in range(a, b + 1))
UNSAFE_IN_SOURCE = CONTROLS | INVISIBLE  # a value brings into source: refused
SURROGATES = ("\udc80", "\udcff")  # os.fsdecode's stand-ins for undecodable bytes

# A line of terminal output shows each of these as Python writes it in a string
# literal (``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``, ``\\U000e0041``): raw, a line break
# splits a message, ESC starts the sequences that clear the screen or move the cursor,
# a tab breaks a table's columns, an invisible character hides or reorders text.
_ESCAPES = {ord(c): repr(c)[1:-1] for c in (*LINE_BREAKS, "\t", *CONTROLS)}
_ESCAPES.update((ord(c), f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
                for c in INVISIBLE)  # fmt: skip


def escapes_keeping(kept: str) -> dict[int, str]:
    """``one_line``'s escapes (a ``str.translate`` table) without those of the
    characters in ``kept`` (a CSV keeps a field's tab, CR and LF as data)."""
    return {code: shown for code, shown in _ESCAPES.items() if chr(code) not in kept}


_UNPRINTABLE = frozenset(LINE_BREAKS) | CONTROLS | INVISIBLE | {"\t"}
_C_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r"}
# Where a log reader may start a new line (GitHub's splits at CR and LF).
_READER_BREAKS = re.compile(f"([{re.escape(LINE_BREAKS)}])")
OLD_COMMAND = "##["


def unprintable(char: str) -> bool:
    return char in _UNPRINTABLE or SURROGATES[0] <= char <= SURROGATES[1]


def describe_unsafe(char: str) -> str:
    """What ``char`` (a line break, a control or an invisible character) is, for a
    message: ``a line break (U+000A)``."""
    if char in LINE_BREAKS:
        kind = "a line break"
    elif char in INVISIBLE:
        kind = "an invisible or direction-changing character"
    else:
        kind = "a control character"
    return f"{kind} (U+{ord(char):04X})"


def escape_commands(text: str) -> str:
    """``text`` with nothing a GitHub Actions log would obey as a workflow command:
    ``##[`` written ``##\\[``, and in every line (lines split where any log reader
    may split them) whose first non-blank characters are ``::``, the first of them
    written ``:\\:``. Everything else is kept."""
    if OLD_COMMAND in text:
        text = text.replace(OLD_COMMAND, "##\\[")
    if "::" not in text:
        return text
    parts = _READER_BREAKS.split(text)
    for index in range(0, len(parts), 2):  # separators at the odd indexes
        line = parts[index]
        rest = line.lstrip()
        if rest.startswith("::"):
            parts[index] = line[: len(line) - len(rest)] + ":\\:" + rest[2:]
    return "".join(parts)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON spells a character past U+FFFF
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# What json.dumps(ensure_ascii=False) leaves raw in a string and a terminal would obey
# or hide: written as JSON escapes. Raw, these can only stand inside strings (the
# document's own structure is ASCII), and "\n" there is escaped already: the one raw
# "\n" is the indentation's, left alone.
_JSON_ESCAPES = {
    ord(c): _json_escape(c) for c in (*CONTROLS, *INVISIBLE, *LINE_BREAKS) if c != "\n"
}


def escape_json(document: str, encoding: str | None = None) -> str:
    """A JSON document (``json.dumps``, indented) as printed: the same values, with
    controls, line breaks and invisible characters in strings as ``\\uXXXX``
    escapes, and ``##[`` as ``##\\u005b`` (an indented document never starts a line
    with ``::``: its strings are quoted); and, for a stream in ``encoding``, every
    character it cannot encode as a JSON escape too (a Latin-1 locale, ``日本``)."""
    escaped = document.translate(_JSON_ESCAPES).replace(OLD_COMMAND, "##\\u005b")
    if encoding is None:
        return escaped
    try:
        escaped.encode(encoding)
    except UnicodeEncodeError:
        return _NON_ASCII.sub(lambda m: _encodable(m.group(), encoding), escaped)
    except LookupError:  # an encoding Python does not know: it writes nothing
        pass
    return escaped


_NON_ASCII = re.compile("[^\\x00-\\x7f]")


def _encodable(char: str, encoding: str) -> str:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return _json_escape(char)
    return char


def one_line(text: str) -> str:
    """``text`` as one line that shows what it holds: each line break, tab, control
    and invisible character written as its escape (``\\n``, ``\\x1b``, ``\\u200b``),
    the undecodable bytes of a file name as ``\\udc80``-style escapes, and nothing a
    CI log would take for a workflow command. Every string that came from an input
    goes through here before it reaches a terminal, stdout or stderr."""
    shown = text.translate(_ESCAPES).encode("utf-8", "backslashreplace").decode()
    return escape_commands(shown)


def quote_path(path: str) -> str:
    """``path`` (a name as the OS gives it, read as the UTF-8 text it is in any
    locale: ``filenames.text_name``) as git prints it (``core.quotePath``):
    unchanged when every character is printable and none is ``"`` or a backslash;
    else in double quotes, with C escapes (newline as backslash-n, tab as
    backslash-t, ...) and octal for the bytes of other unprintable characters
    (invisible ones and the undecodable bytes of a file name included). A name that
    would make a workflow command of its line (``##[``, or ``::`` first) is quoted
    too, the ``[`` of ``##[`` in octal. The one spelling of a path in output: no
    file name can start a line of it."""
    path = text_name(path)
    command = OLD_COMMAND in path or path.lstrip().startswith("::")
    if not command and not any(unprintable(c) or c in '"\\' for c in path):
        return path
    quoted = []
    for index, char in enumerate(path):
        if char in '"\\':
            quoted.append("\\" + char)
        elif char == "[" and path[max(0, index - 2) : index] == "##":
            quoted.append("\\133")
        elif not unprintable(char):
            quoted.append(char)
        else:
            for byte in char.encode("utf-8", "surrogateescape"):
                quoted.append("\\" + _C_ESCAPES.get(byte, f"{byte:03o}"))
    return '"' + "".join(quoted) + '"'
