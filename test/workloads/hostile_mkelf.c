// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_mkelf OUT SECTION SIZE: a sparse ELF64 shared object of this machine whose section
 * SECTION (.eh_frame, .symtab) claims SIZE bytes, all inside the file, which is SIZE + 8 KiB
 * long but holds a few KiB: the section's bytes are a hole. One PT_LOAD maps the first page
 * executable, so a tracer takes the file for code. The same file as test/hostile/mkelf.py, for
 * the VM tier's guests, which have no python (vm/hostile).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__aarch64__)
#define HM_MACHINE EM_AARCH64
#else
#define HM_MACHINE EM_X86_64
#endif

int main(int argc, char **argv)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Shdr sh[3] = { 0 };
	char shstr[128], code[0x1000 - sizeof(eh) - sizeof(ph)];
	unsigned long long size, shstr_off, sh_off;
	size_t shlen;
	int fd, symtab;

	if (argc != 4 || strlen(argv[2]) > 64) {
		fprintf(stderr, "usage: hostile_mkelf OUT SECTION SIZE\n");
		return 2;
	}
	size = strtoull(argv[3], NULL, 0);
	symtab = !strcmp(argv[2], ".symtab");
	shstr[0] = 0;
	strcpy(shstr + 1, argv[2]);
	strcpy(shstr + 2 + strlen(argv[2]), ".shstrtab");
	shlen = 2 + strlen(argv[2]) + sizeof(".shstrtab");
	shstr_off = 0x1000 + size;
	sh_off = (shstr_off + shlen + 7) & ~7ULL;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = HM_MACHINE;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = sh_off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 2;
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = ph.p_memsz = ph.p_align = 0x1000;
	sh[1].sh_name = 1;
	sh[1].sh_type = symtab ? SHT_SYMTAB : SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC;
	sh[1].sh_offset = 0x1000;
	sh[1].sh_size = size;
	sh[1].sh_link = symtab ? 2 : 0;
	sh[1].sh_addralign = 8;
	sh[1].sh_entsize = symtab ? sizeof(Elf64_Sym) : 0;
	sh[2].sh_name = 2 + strlen(argv[2]);
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = shstr_off;
	sh[2].sh_size = shlen;
	sh[2].sh_addralign = 8;
	memset(code, 0xc3, sizeof(code)); /* "code": x86's ret; any bytes do on arm64 */

	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, &eh, sizeof(eh)) != sizeof(eh) ||
	    write(fd, &ph, sizeof(ph)) != sizeof(ph) ||
	    write(fd, code, sizeof(code)) != sizeof(code) ||
	    pwrite(fd, shstr, shlen, shstr_off) != (ssize_t)shlen ||
	    pwrite(fd, sh, sizeof(sh), sh_off) != sizeof(sh) || close(fd)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
