// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the least a libbpf tool can do. Loads empty programs (bench/floor.bpf.c), attaches
 * them the way the measured tool does, prints one line once attached, waits (for -d SECONDS,
 * or until SIGINT/SIGTERM), detaches and exits. scripts/bench puts it beside each tool: per
 * event it is the price of the attach point itself; for a whole trace, of loading and
 * attaching with libbpf at all (the vmlinux BTF parse included, which every CO-RE tool pays).
 *	floor [-d SECONDS] [-1] tp|tp-core|switch|block|open|uprobe PATH FUNC
 * -1: a uprobe as one perf-event link even where the kernel has uprobe.multi.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"
#include "floor_core.skel.h"

/* uprobe.multi (6.6), which libbpf 1.1 and its headers predate: lib/attach/bt_attach_user.c does
 * the same for the tools. */
#define TRACE_UPROBE_MULTI 48

struct umulti_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 umulti_flags;
	__u32 pid;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The file offset of function 'name' in ELF file 'path' (what a uprobe wants). */
static int func_offset(const char *path, const char *name, __u64 *off)
{
	Elf_Scn *scn = NULL;
	int fd, err = -ENOENT;
	GElf_Addr vaddr = 0;
	bool found = false;
	size_t i, n;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		goto cleanup;
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *sn;

			if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			sn = elf_strptr(elf, sh.sh_link, s.st_name);
			if (sn && !strcmp(sn, name)) {
				vaddr = s.st_value;
				found = true;
				break;
			}
		}
	}
	if (!found || elf_getphdrnum(elf, &n))
		goto cleanup;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			err = 0;
			break;
		}
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

static int uprobe_multi(struct bpf_program *prog, const char *path, __u64 off)
{
	struct umulti_attr attr;
	__u64 cookie = 0;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = bpf_program__fd(prog);
	attr.attach_type = TRACE_UPROBE_MULTI;
	attr.path = (__u64)(uintptr_t)path;
	attr.offsets = (__u64)(uintptr_t)&off;
	attr.cookies = (__u64)(uintptr_t)&cookie;
	attr.cnt = 1;
	return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
}

/* What the tools' feature probe asks: does the kernel know uprobe.multi links? */
static bool have_uprobe_multi(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool ok;

	if (!btf)
		return false;
	ok = btf__find_by_name_kind(btf, "bpf_uprobe_multi_link", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return ok;
}

static void wait_for(double seconds, sigset_t *old)
{
	if (seconds > 0) {
		struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

		sigprocmask(SIG_SETMASK, old, NULL);
		while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
			;
	} else {
		while (!stop)
			sigsuspend(old);
	}
}

static void catch_signals(sigset_t *old)
{
	sigset_t block;

	/* blocked until the wait, so that a signal before it is not lost */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, old);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

/* floor tp-core: the tracepoint floor plus one CO-RE read, its own object */
static int core_floor(double seconds)
{
	struct floor_core_bpf *skel;
	sigset_t old;
	int err;

	catch_signals(&old);
	skel = floor_core_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "floor: cannot load: %s\n", strerror(errno));
		return 1;
	}
	err = floor_core_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot attach: %s\n", strerror(-err));
		floor_core_bpf__destroy(skel);
		return 1;
	}
	printf("Tracing (floor tp-core)... Ctrl-C to end.\n");
	fflush(stdout);
	wait_for(seconds, &old);
	floor_core_bpf__destroy(skel);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: floor [-d SECONDS] [-1] tp|tp-core|switch|block|open|uprobe PATH FUNC\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[2] = {};
	struct floor_bpf *skel = NULL;
	struct bpf_program *p[2] = {};
	const char *kind, *upath = NULL;
	bool btf, multi = true;
	double seconds = 0;
	int opt, err = 0, mfd = -1, i;
	sigset_t old;
	__u64 uoff = 0;

	while ((opt = getopt(argc, argv, "d:1")) != -1) {
		if (opt == 'd')
			seconds = atof(optarg);
		else if (opt == '1')
			multi = false;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();
	kind = argv[optind];
	if (!strcmp(kind, "tp-core"))
		return core_floor(seconds);
	catch_signals(&old);
	libbpf_set_print(silent);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	if (!strcmp(kind, "tp")) {
		p[0] = skel->progs.floor_tp;
	} else if (!strcmp(kind, "switch")) {
		p[0] = btf ? skel->progs.floor_switch_btf : skel->progs.floor_switch_raw;
	} else if (!strcmp(kind, "block")) {
		p[0] = btf ? skel->progs.floor_issue_btf : skel->progs.floor_issue_raw;
		p[1] = btf ? skel->progs.floor_complete_btf : skel->progs.floor_complete_raw;
	} else if (!strcmp(kind, "open")) {
		p[0] = skel->progs.floor_open_enter;
		p[1] = skel->progs.floor_open_exit;
	} else if (!strcmp(kind, "uprobe") && optind + 2 < argc) {
		upath = argv[optind + 1];
		err = func_offset(upath, argv[optind + 2], &uoff);
		if (err) {
			fprintf(stderr, "floor: no function %s in %s: %s\n", argv[optind + 2],
				upath, strerror(-err));
			err = 1;
			goto cleanup;
		}
		p[0] = skel->progs.floor_uprobe;
		multi = multi && have_uprobe_multi();
		if (multi)
			bpf_program__set_expected_attach_type(p[0], TRACE_UPROBE_MULTI);
	} else {
		floor_bpf__destroy(skel);
		return usage();
	}
	for (i = 0; i < 2; i++)
		if (p[i])
			bpf_program__set_autoload(p[i], true);
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "floor: cannot load: %s\n", strerror(-err));
		err = 1;
		goto cleanup;
	}
	for (i = 0; i < 2 && p[i]; i++) {
		if (upath && multi) {
			mfd = uprobe_multi(p[i], upath, uoff);
			err = mfd < 0 ? -errno : 0;
		} else if (upath) {
			links[i] = bpf_program__attach_uprobe(p[i], false, -1, upath, uoff);
			err = links[i] ? 0 : -errno;
		} else {
			links[i] = bpf_program__attach(p[i]);
			err = links[i] ? 0 : -errno;
		}
		if (err) {
			fprintf(stderr, "floor: cannot attach %s: %s\n", bpf_program__name(p[i]),
				strerror(-err));
			err = 1;
			goto cleanup;
		}
	}
	printf("Tracing (floor %s%s)... Ctrl-C to end.\n", kind,
	       upath ? (multi ? ", uprobe.multi" : ", perf-event uprobe") : "");
	fflush(stdout);
	wait_for(seconds, &old);
cleanup:
	for (i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	if (mfd >= 0)
		close(mfd);
	floor_bpf__destroy(skel);
	return err;
}
