"""A target about to be replaced: whether it may be (a regular, writable file outside
``.git``, on a file system mounted read-write), and its temporary's content and
metadata (the target's mode, owner and group where permitted, and its extended
attributes: POSIX ACLs, SELinux labels and the rest). Every refusal is one
``path: error: cannot write: ...`` line; extended attributes that cannot be kept are
one warning."""

from __future__ import annotations

import errno
import os
import stat

from tuning_codegen.errors import InputError, InputWarning, Location
from tuning_codegen.textio import file_kind

NO_ATTRIBUTES = frozenset({errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


def in_git_folder(path: str) -> bool:
    """Whether any component of ``path`` is ``.git`` (any case: macOS, Windows)."""
    return any(part.casefold() == ".git" for part in path.split(os.sep))


def cannot_write(shown: str, exc: OSError, step: str = "") -> InputError:
    reason = exc.strerror or str(exc)
    return InputError(shown, f"cannot write: {f'{step}: ' if step else ''}{reason}")


def no_temporary(shown: str, exc: OSError) -> InputError:
    """Why nothing can be created beside ``shown``, naming its folder."""
    folder = os.path.dirname(shown) or "."
    if exc.errno == errno.ENOENT:
        return InputError(
            shown, f"cannot write: the folder {folder} does not exist (create it first)"
        )
    return cannot_write(shown, exc, f"cannot create a file in the folder {folder}")


def writable_target(shown: str, real: str) -> os.stat_result | None:
    """The target's status (None: a new file); refuses what must not be replaced."""
    if in_git_folder(real):
        raise InputError(shown, f"cannot write: {real} is inside a .git folder")
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise cannot_write(shown, exc) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            shown, f"cannot write: not a regular file ({file_kind(info.st_mode)})"
        )
    if _read_only_file_system(real):
        raise InputError(
            shown, "cannot write: the file system holding it is mounted read-only"
        )
    if not info.st_mode & stat.S_IWUSR or not os.access(real, os.W_OK):
        mode = stat.S_IMODE(info.st_mode)
        raise InputError(shown, f"cannot write: read-only file (mode {mode:04o})")
    return info


def _read_only_file_system(path: str) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def copy_metadata(fd: int, info: os.stat_result | None) -> None:
    """The target's owner and group (where permitted), then its mode."""
    if info is None:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        return
    for uid in (info.st_uid, -1):  # not allowed to give the file away: keep the group
        try:
            os.fchown(fd, uid, info.st_gid)
            break
        except PermissionError:
            continue
    os.fchmod(fd, stat.S_IMODE(info.st_mode))


def copy_attributes(shown: str, real: str, fd: int) -> InputWarning | None:
    """The target's extended attributes (``system.posix_acl_access``,
    ``security.selinux``, ``user.*`` ...) given to the temporary ``fd``, and those it
    was born with but the target has not (an ACL a folder's default gives) taken
    away; a warning naming those that cannot be given (not permitted here, or not
    kept by the file system). After the mode: an ACL's mask is the group's bits."""
    if not hasattr(os, "listxattr"):  # not Linux: no such calls
        return None
    try:
        names = os.listxattr(real)
    except OSError as exc:
        if exc.errno in NO_ATTRIBUTES:  # the file system keeps none: none to lose
            return None
        return _lost(shown, ["(any)"], exc)
    _drop_others(fd, set(names))
    lost: list[str] = []
    reason: OSError | None = None
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(real, name))
        except OSError as exc:
            lost.append(name)
            reason = reason or exc
    return None if reason is None else _lost(shown, lost, reason)


def _drop_others(fd: int, keep: set[str]) -> None:
    try:
        born = os.listxattr(fd)
    except OSError:
        return
    for name in born:
        if name not in keep:
            try:
                os.removexattr(fd, name)
            except OSError:
                continue  # a label the system gives every file: it stays


def _lost(shown: str, names: list[str], exc: OSError) -> InputWarning:
    reason = exc.strerror or str(exc)
    return InputWarning(
        Location(shown),
        f"cannot keep its extended attributes ({', '.join(names)}): {reason}; the "
        "rewritten file has the others",
    )
