"""The notebooks' kernel, without ipykernel's "running over TCP without encryption" warning.

ipykernel (7.x, ``IPKernelApp.init_sockets``) logs at WARNING level, on every kernel start,
``Kernel is running over TCP without encryption. All communication ... is sent in plain text``:
the kernel talks to papermill over local TCP sockets, as every Jupyter kernel does by default.
``nlpbias book`` starts seven kernels, and the warning was all that it printed.

:class:`QuietKernelManager` (jupyter_client's ``KernelManager``, which papermill's client takes as
``kernel_manager_class``) starts the kernel as ``python -m nlpbias.book.kernel`` instead of
``python -m ipykernel_launcher``. That module starts the same ``IPKernelApp`` with one
:class:`logging.Filter` on its logger that drops exactly that message; every other message of the
kernel is shown as before.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

__all__ = ["TCP_WARNING", "DropTcpWarning", "QuietKernelManager", "main"]

#: The start of the message that is dropped.
TCP_WARNING = "Kernel is running over TCP without encryption"
_LAUNCHER = "ipykernel_launcher"


class DropTcpWarning(logging.Filter):
    """Drops the log records whose message starts with :data:`TCP_WARNING`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(TCP_WARNING)


class QuietKernelManager(KernelManager):
    """A ``KernelManager`` that launches ``python -m nlpbias.book.kernel`` for ipykernel.

    A kernel spec that does not run ``-m ipykernel_launcher`` is launched unchanged.
    """

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd: list[Any] = super().format_kernel_cmd(extra_arguments)
        for i in range(len(cmd) - 1):
            if cmd[i] == "-m" and cmd[i + 1] == _LAUNCHER:
                return [*cmd[: i + 1], __name__, *cmd[i + 2 :]]
        return cmd


def main() -> None:
    """Start an IPython kernel (as ``ipykernel_launcher`` does) with :class:`DropTcpWarning`."""
    # Like ipykernel_launcher: the working directory leaves sys.path while the kernel loads
    # (InteractiveShellApp.init_path puts it back).
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.log.addFilter(DropTcpWarning())
    app.initialize()
    app.start()


if __name__ == "__main__":
    main()
