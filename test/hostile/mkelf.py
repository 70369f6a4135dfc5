#!/usr/bin/env python3
# mkelf.py OUT SECTION SIZE: a sparse ELF64 (x86-64, ET_DYN) whose section SECTION (.eh_frame,
# .symtab...) claims SIZE bytes, all of them inside the file, which is SIZE + 8 KiB long but
# holds a few KiB of data: the rest is a hole (nothing allocated on disk). One PT_LOAD maps
# its first page executable, so the tracer takes it for code. What a section's header says must
# be checked against the blocks the file has before the section is read.
import struct
import sys

out, name, size = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
shstr = b"\0" + name + b"\0.shstrtab\0"
data_off = 0x1000
shstr_off = data_off + size
sh_off = (shstr_off + len(shstr) + 7) & ~7
SHT_PROGBITS, SHT_STRTAB, SHT_SYMTAB = 1, 3, 2
kind = SHT_SYMTAB if name == b".symtab" else SHT_PROGBITS
ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, 3, 62, 1, 0, 64,
                   sh_off, 0, 64, 56, 1, 64, 3, 2)
phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, 0x1000, 0x1000, 0x1000)


def shdr(nm, typ, flags, off, sz, link=0, entsize=0):
    return struct.pack("<IIQQQQIIQQ", nm, typ, flags, 0, off, sz, link, 0, 8, entsize)


shdrs = (shdr(0, 0, 0, 0, 0) +
         shdr(1, kind, 2, data_off, size, 2 if kind == SHT_SYMTAB else 0,
              24 if kind == SHT_SYMTAB else 0) +
         shdr(2 + len(name), SHT_STRTAB, 0, shstr_off, len(shstr)))
with open(out, "wb") as f:
    f.write(ehdr + phdr)
    f.write(b"\xc3" * (data_off - f.tell()))  # the "code": ret
    f.seek(shstr_off)  # the section's bytes: a hole
    f.write(shstr)
    f.seek(sh_off)
    f.write(shdrs)
