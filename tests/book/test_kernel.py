"""The notebooks' kernel: ipykernel without its TCP warning, and nothing else changed."""

from __future__ import annotations

import logging
import sys

from nlpbias.book.kernel import TCP_WARNING, DropTcpWarning, QuietKernelManager


def _record(msg: str) -> logging.LogRecord:
    return logging.LogRecord("IPKernelApp", logging.WARNING, __file__, 1, msg, None, None)


def test_the_filter_drops_exactly_the_tcp_warning() -> None:
    drop = DropTcpWarning()
    full = (
        "Kernel is running over TCP without encryption. All communication (including code and "
        "outputs) is sent in plain text and is susceptible to eavesdropping."
    )
    assert full.startswith(TCP_WARNING)
    assert not drop.filter(_record(full))
    assert drop.filter(_record("Kernel is running over IPC"))
    assert drop.filter(_record("Failed to load connection file: %r"))


def test_the_manager_launches_our_module_instead_of_ipykernel_launcher() -> None:
    km = QuietKernelManager(kernel_name="python3")
    km.connection_file = "/tmp/kernel-test.json"
    cmd = km.format_kernel_cmd()
    assert cmd[1:4] == ["-m", "nlpbias.book.kernel", "-f"] and "ipykernel_launcher" not in cmd
    assert cmd[0] in {sys.executable, "python", "python3"} or cmd[0].endswith("python")
