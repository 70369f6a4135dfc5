// SPDX-License-Identifier: GPL-2.0
/*
 * Separate debug information for stripped files, tried in this order: .gnu_debugdata
 * (MiniDebugInfo: an xz-compressed ELF with a .symtab of the functions .dynsym lacks), the
 * .gnu_debuglink file, /usr/lib/debug/.build-id/xx/yyyy.debug. Paths resolve inside the file's
 * root (/proc/PID/root for a process in a container) with RESOLVE_IN_ROOT (bt_procfile.h): a
 * symlinked debug link resolves in the container too, never on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bt_procfile.h"
#include "elf_internal.h"

/* A MiniDebugInfo image is a few hundred KB; refuse a decompression bomb. */
#define BT_DEBUGDATA_MAX (256u << 20)

static int xz_decode(const void *in, size_t in_len, void **out, size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = in_len * 4 + 4096;
	unsigned char *buf = NULL, *nb;
	lzma_ret r;
	int err = -ENOEXEC;

	if (lzma_stream_decoder(&s, BT_DEBUGDATA_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = in_len;
	for (;;) {
		if (!buf || !s.avail_out) {
			size_t used = buf ? (size_t)(s.next_out - buf) : 0;

			if (buf)
				cap *= 2;
			if (cap > BT_DEBUGDATA_MAX)
				goto cleanup;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				goto cleanup;
			}
			buf = nb;
			s.next_out = buf + used;
			s.avail_out = cap - used;
		}
		r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK)
			goto cleanup;
	}
	*out_len = s.next_out - buf;
	*out = buf;
	buf = NULL;
	err = 0;
cleanup:
	lzma_end(&s);
	free(buf);
	return err;
}

int bt_elf__load_debugdata(struct bt_elf *elf)
{
	size_t len, before = elf->nsyms;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	void *img;
	Elf *e;
	int err;

	scn = bt_elf__find_scn(elf->elf, &elf->lim, ".gnu_debugdata", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS ||
	    !(d = bt_elf__rawdata(&elf->lim, scn, BT_ELF_MAX_SECTION)) || !d->d_buf)
		return -ENOENT;
	err = xz_decode(d->d_buf, d->d_size, &img, &len);
	if (err)
		return err;
	bt_elf__lim_mem(len, &elf->aux.lim);
	e = elf_memory(img, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		free(img);
		return -ENOEXEC;
	}
	scn = bt_elf__find_scn_type(e, SHT_SYMTAB, &sh);
	err = scn ? bt_elf__add_symtab(elf, e, &elf->aux.lim, scn, 1, 1) : -ENOENT;
	if (err || elf->nsyms == before) {
		elf_end(e);
		free(img);
		return err ? err : -ENOENT;
	}
	elf->aux.elf = e; /* names point into it */
	elf->aux.mem = img;
	elf->sym_source = BT_ELF_SRC_DEBUGDATA;
	return 0;
}

static int crc_file(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, n);
		off += n;
	}
	if (n < 0)
		return -errno;
	*crc = c;
	return 0;
}

static int debuglink(struct bt_elf *elf, char *name, size_t cap, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = bt_elf__find_scn(elf->elf, &elf->lim, ".gnu_debuglink", &sh);
	Elf_Data *d, dst, src;
	size_t len;
	GElf_Ehdr eh;

	/* a name and a CRC: a few dozen bytes */
	if (!scn || !(d = bt_elf__getdata(&elf->lim, scn, BT_ELF_MAX_NOTE)) || !d->d_buf ||
	    !gelf_getehdr(elf->elf, &eh))
		return -ENOENT;
	len = strnlen(d->d_buf, d->d_size);
	if (!len || len >= cap || len == d->d_size)
		return -ENOEXEC;
	memcpy(name, d->d_buf, len);
	name[len] = 0;
	if (strchr(name, '/'))
		return -ENOEXEC; /* a bare file name by definition; no escaping the debug dirs */
	len = (len + 4) & ~(size_t)3;
	if (len + 4 > d->d_size)
		return -ENOEXEC;
	src = (Elf_Data){ .d_buf = (char *)d->d_buf + len,
			  .d_type = ELF_T_WORD,
			  .d_size = 4,
			  .d_version = EV_CURRENT };
	dst = (Elf_Data){
		.d_buf = crc, .d_type = ELF_T_WORD, .d_size = 4, .d_version = EV_CURRENT
	};
	if (!gelf_xlatetom(elf->elf, &dst, &src, eh.e_ident[EI_DATA]))
		return -ENOEXEC;
	return 0;
}

int bt_elf__open_in_root(const struct bt_elf *elf, const char *path)
{
	return bt_procfile_open_in(elf->root, path, NULL, NULL);
}

/*
 * Is the candidate really this file's debug file? A build-id match is enough and cheap; only
 * without build-ids does the debuglink CRC (a read of the whole file) decide.
 */
static int open_candidate(struct bt_elf *elf, const char *path, const uint32_t *crc, int *fdp,
			  Elf **ep, struct bt_elf_lim *lim)
{
	unsigned char id[64];
	size_t id_len = 0;
	struct stat st;
	uint32_t c;
	Elf *e = NULL;
	int fd;

	/* a FIFO or a symlink out of the root where a debug file is looked for: refused */
	fd = bt_elf__open_in_root(elf, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_dev == elf->dev && st.st_ino == elf->ino) || bt_elf__precheck(fd, lim))
		goto fail;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto fail;
	if (elf->build_id_len && !bt_elf__read_build_id(e, lim, id, sizeof(id), &id_len)) {
		if (id_len != elf->build_id_len || memcmp(id, elf->build_id_raw, id_len))
			goto fail;
	} else if (crc) {
		if (crc_file(fd, &c) || c != *crc)
			goto fail;
	} else if (elf->build_id_len) {
		goto fail; /* found by build-id path but carries no id: not trustworthy */
	}
	*fdp = fd;
	*ep = e;
	return 0;
fail:
	if (e)
		elf_end(e);
	close(fd);
	return -ENOENT;
}

/* Candidate paths in the order gdb and elfutils use; returns the first that validates. */
static char *find_debug(struct bt_elf *elf, int *fdp, Elf **ep, int *source, struct bt_elf_lim *lim)
{
	char link[256], dir[PATH_MAX], cand[PATH_MAX];
	const char *slash;
	uint32_t crc;
	size_t i;
	int n;

	if (!debuglink(elf, link, sizeof(link), &crc) && elf->path[0] == '/') {
		slash = strrchr(elf->path, '/');
		n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - elf->path), elf->path);
		if (n > 0 && (size_t)n < sizeof(dir)) {
			static const char *const fmts[] = { "%s/%s", "%s/.debug/%s",
							    "/usr/lib/debug%s/%s" };

			for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
				n = snprintf(cand, sizeof(cand), fmts[i], dir, link);
				if (n < 0 || (size_t)n >= sizeof(cand))
					continue;
				if (!open_candidate(elf, cand, &crc, fdp, ep, lim)) {
					*source = BT_ELF_SRC_DEBUGLINK;
					return strdup(cand);
				}
			}
		}
	}
	if (elf->build_id_len >= 2) {
		n = snprintf(cand, sizeof(cand), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			     elf->build_id, elf->build_id + 2);
		if (n > 0 && (size_t)n < sizeof(cand) &&
		    !open_candidate(elf, cand, NULL, fdp, ep, lim)) {
			*source = BT_ELF_SRC_BUILDID;
			return strdup(cand);
		}
	}
	return NULL;
}

int bt_elf__load_debugfile(struct bt_elf *elf)
{
	size_t before = elf->nsyms;
	int fd = -1, source = 0, err;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *e = NULL;
	char *path;

	path = find_debug(elf, &fd, &e, &source, &elf->aux.lim);
	if (!path) {
		if (e)
			elf_end(e);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	scn = bt_elf__find_scn_type(e, SHT_SYMTAB, &sh);
	err = scn ? bt_elf__add_symtab(elf, e, &elf->aux.lim, scn, 1, 1) : -ENOENT;
	elf->debug_path = path;
	if (err || elf->nsyms == before) {
		elf_end(e);
		close(fd);
		return err ? err : -ENOENT;
	}
	elf->aux.elf = e;
	elf->aux.fd = fd;
	elf->sym_source = source;
	return 0;
}

char *bt_elf__find_debug_file(struct bt_elf *elf)
{
	struct bt_elf_lim lim;
	int fd = -1, source;
	Elf *e = NULL;
	char *path;

	if (elf->debug_path)
		return strdup(elf->debug_path);
	path = find_debug(elf, &fd, &e, &source, &lim);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return path;
}
