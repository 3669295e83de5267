"""Read the header of a native binary (ELF, Mach-O, PE) with :mod:`struct` alone: which CPU
it is built for and, for ELF, which C library it links. For the .vsix platform test
(tests/release/test_vsix_platforms.py); no external tool is run.

Header layouts: ELF (System V ABI, ``Elf64_Ehdr``/``Elf64_Phdr``/``Elf64_Dyn``), Mach-O
(``mach_header_64`` and the big-endian ``fat_header``/``fat_arch`` of universal binaries,
``<mach-o/loader.h>``, ``<mach-o/fat.h>``), PE/COFF (``IMAGE_DOS_HEADER.e_lfanew``, then
``PE\\0\\0`` and ``IMAGE_FILE_HEADER.Machine``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

ELF_MACHINES = {0x3E: "x86_64", 0xB7: "aarch64", 0x03: "x86", 0x28: "arm"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64", 7: "x86", 12: "arm"}
PE_MACHINES = {0x8664: "x86_64", 0xAA64: "arm64", 0x014C: "x86"}

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


@dataclass(frozen=True)
class Binary:
    """What a native file is built for.

    ``format``: ``"elf"``, ``"macho"`` or ``"pe"``; ``cpus``: the CPU names (one, or the
    slices of a universal Mach-O binary); ``needed``: an ELF file's ``DT_NEEDED`` library
    names (empty for the other formats).
    """

    format: str
    cpus: tuple[str, ...]
    needed: tuple[str, ...] = ()

    @property
    def libc(self) -> str | None:
        """``"musl"``, ``"glibc"`` or None (an ELF file that names no C library)."""
        if any(n.startswith("libc.musl-") or n.startswith("ld-musl-") for n in self.needed):
            return "musl"
        if "libc.so.6" in self.needed:
            return "glibc"
        return None


def is_native(data: bytes) -> bool:
    """Whether the bytes start like an ELF, Mach-O (thin or universal) or PE file."""
    return (
        data[:4] == b"\x7fELF"
        or data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
        or data[:2] == b"MZ"
    )


def read_binary(data: bytes) -> Binary:
    """Parse a whole file's bytes. Raises ValueError for anything else or a damaged header."""
    try:
        if data[:4] == b"\x7fELF":
            return _elf(data)
        if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):
            (cpu,) = struct.unpack_from("<i", data, 4)
            return Binary("macho", (MACHO_CPUS.get(cpu & 0xFFFFFFFF, hex(cpu)),))
        if data[:4] == b"\xca\xfe\xba\xbe":
            (count,) = struct.unpack_from(">I", data, 4)
            cpus = []
            for i in range(count):
                (cpu,) = struct.unpack_from(">I", data, 8 + 20 * i)
                cpus.append(MACHO_CPUS.get(cpu, hex(cpu)))
            return Binary("macho", tuple(cpus))
        if data[:2] == b"MZ":
            (pe,) = struct.unpack_from("<I", data, 0x3C)
            if data[pe : pe + 4] != b"PE\0\0":
                raise ValueError("no PE signature")
            (machine,) = struct.unpack_from("<H", data, pe + 4)
            return Binary("pe", (PE_MACHINES.get(machine, hex(machine)),))
    except struct.error as e:
        raise ValueError(f"truncated header: {e}") from None
    raise ValueError("not an ELF, Mach-O or PE file")


def _elf(data: bytes) -> Binary:
    if data[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    end = "<" if data[5] == 1 else ">"
    (machine,) = struct.unpack_from(end + "H", data, 18)
    (phoff,) = struct.unpack_from(end + "Q", data, 32)
    phentsize, phnum = struct.unpack_from(end + "HH", data, 54)
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dynamic = None
    for i in range(phnum):
        p_type, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
            end + "IIQQQQ", data, phoff + i * phentsize
        )
        if p_type == PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (offset, filesz)
    needed: list[int] = []
    strtab = None
    if dynamic is not None:
        offset, size = dynamic
        for pos in range(offset, offset + size, 16):
            tag, value = struct.unpack_from(end + "qQ", data, pos)
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                needed.append(value)
            elif tag == DT_STRTAB:
                strtab = value
    names: list[str] = []
    if strtab is not None:
        base = next((off + strtab - va for va, off, sz in loads if va <= strtab < va + sz), None)
        if base is None:
            raise ValueError("DT_STRTAB outside every PT_LOAD segment")
        for index in needed:
            start = base + index
            names.append(data[start : data.index(b"\0", start)].decode())
    return Binary("elf", (ELF_MACHINES.get(machine, hex(machine)),), tuple(names))
