"""A linked kernel's resources, read from its cubin without a GPU: the registers per
thread, the static shared memory per block and the local memory (stack frame) per
thread, as `cuobjdump --dump-resource-usage` reports them. The cubin is an ELF file:

- `.text.<kernel>`: its `sh_info` is the kernel's symbol index;
- `.nv.shared.<kernel>`: its size is the static shared memory, plus the 1 KiB the
  system reserves per block (cudaDevAttrReservedSharedMemoryPerBlock) where the cubin
  has a `.nv.shared.reserved.*` section: ptxas -v and cuobjdump leave that out too;
- `.nv.info`: attribute records per symbol, of which EIATTR_REGCOUNT and
  EIATTR_FRAME_SIZE hold the registers and the frame."""

from __future__ import annotations

import dataclasses
import struct

_EIATTR_FRAME_SIZE = 0x11
_EIATTR_REGCOUNT = 0x2F
_RESERVED_SHARED_BYTES = 1024
_EIFMT_SVAL = 0x04  # a record with a payload: (format, attribute, payload size, payload)


@dataclasses.dataclass(frozen=True)
class Resources:
    registers: int  # per thread
    shared_bytes: int  # static shared memory per block
    local_bytes: int  # stack frame per thread


def _sections(cubin: bytes) -> dict:
    """Section name -> (sh_info, offset, size) of a 64-bit little-endian ELF file."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return {}
    (shoff,) = struct.unpack_from("<Q", cubin, 0x28)
    entsize, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
    names_offset = headers[names_index][4]
    found = {}
    for name, _, _, _, offset, size, _, info, _, _ in headers:
        start = names_offset + name
        found[cubin[start : cubin.index(b"\0", start)].decode()] = (info, offset, size)
    return found


def _symbol_attributes(cubin: bytes, offset: int, size: int, symbol: int) -> dict:
    """Attribute -> value of the (symbol, value) records for `symbol` in an .nv.info section."""
    found, position, end = {}, offset, offset + size
    while position + 4 <= end:
        fmt, attribute, value = struct.unpack_from("<BBH", cubin, position)
        payload = value if fmt == _EIFMT_SVAL else 0
        if payload == 8 and struct.unpack_from("<I", cubin, position + 4)[0] == symbol:
            found[attribute] = struct.unpack_from("<I", cubin, position + 8)[0]
        position += 4 + payload
    return found


def of_kernel(cubin: bytes, name: str) -> Resources | None:
    """The kernel's resources, or None when the cubin does not hold it as expected."""
    sections = _sections(cubin)
    text, info = sections.get(f".text.{name}"), sections.get(".nv.info")
    if text is None or info is None:
        return None
    attributes = _symbol_attributes(cubin, info[1], info[2], text[0])
    shared = sections.get(f".nv.shared.{name}", (0, 0, 0))[2]
    if shared and any(section.startswith(".nv.shared.reserved.") for section in sections):
        shared -= _RESERVED_SHARED_BYTES
    return Resources(
        registers=attributes.get(_EIATTR_REGCOUNT, 0),
        shared_bytes=shared,
        local_bytes=attributes.get(_EIATTR_FRAME_SIZE, 0),
    )
