"""SASS of a kernel and the counts that explain a slow row: local-memory traffic
(LDL/STL), barriers (BAR), calls (CALL: a provider not inlined across the link),
and global loads/stores by width."""

from __future__ import annotations

import collections
import pathlib
import re
import shutil
import subprocess
import tempfile

_INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
COUNTED = ("LDL", "STL", "BAR", "CALL", "WARPSYNC", "LDS", "STS", "LDG", "STG")


def cuobjdump() -> str | None:
    return shutil.which("cuobjdump")


def disassemble(cubin: bytes | pathlib.Path, function: str | None = None) -> str:
    """cuobjdump -sass of a cubin (bytes or a path); only `function` when given."""
    tool = cuobjdump()
    if tool is None:
        raise RuntimeError("cuobjdump is not on PATH")
    with tempfile.TemporaryDirectory() as work:
        path = cubin
        if isinstance(cubin, bytes):
            path = pathlib.Path(work) / "kernel.cubin"
            path.write_bytes(cubin)
        command = [tool, "-sass", *(["-fun", function] if function else []), str(path)]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def split_functions(text: str) -> dict:
    """{function name: its SASS} from the disassembly of a cubin with several kernels."""
    parts = re.split(r"\n\s*Function : (\S+)\n", text)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def opcodes(sass: str) -> list[str]:
    return _INSTRUCTION.findall(sass)


def counts(sass: str) -> dict:
    """Counts of the COUNTED opcode families, of each global access width
    (e.g. LDG.E.128), and the number of instructions (NOPs excluded)."""
    ops = [op for op in opcodes(sass) if op != "NOP"]
    by_family = collections.Counter(op.split(".")[0] for op in ops)
    result = {family: by_family.get(family, 0) for family in COUNTED}
    result["instructions"] = len(ops)
    result["global_widths"] = dict(sorted(collections.Counter(op for op in ops if op[:3] in ("LDG", "STG")).items()))
    return result
