// SPDX-License-Identifier: GPL-2.0
/*
 * lib/kernel/bt_btf_ids: the streaming scan finds the ids btf__find_by_name_kind() finds, in a BTF with
 * every kind of record, names spread over several read windows and records over several
 * noted offsets; its excerpt renders a prototype's parameters as the whole BTF does; it refuses
 * malformed files without reading past them. And on this machine's kernel BTF when there is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/btf.h>
#include <bpf/btf.h>

#include "bt_btf_ids.h"
#include "bt_variant.h"
#include "harness.h"

#define NFILL 3000
/* A record's info word (the kernel's BTF_INFO_ENC, not in the uapi header) */
#define INFO(kind, vlen) ((__u32)(kind) << 24 | (vlen))

/* Every kind, fillers enough for 200 KB of strings and a dozen noted offsets, then the probes. */
static struct btf *sample_btf(void)
{
	struct btf *b = btf__new_empty();
	int i32, u32, chr, boolean, task, ptask, cptask, cchr, pcchr, proto, pvoid, i;
	char name[96];

	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_CHAR);
	boolean = btf__add_typedef(b, "bool", btf__add_int(b, "_Bool", 1, BTF_INT_BOOL));
	task = btf__add_struct(b, "task_struct", 16);
	btf__add_field(b, "pid", i32, 0, 0);
	btf__add_field(b, "flags", u32, 32, 3);
	btf__add_union(b, "u", 4);
	btf__add_field(b, "a", i32, 0, 0);
	btf__add_enum(b, "state", 4);
	btf__add_enum_value(b, "RUNNING", 0);
	btf__add_enum_value(b, "SLEEPING", 1);
	btf__add_enum64(b, "big", 8, false);
	btf__add_enum64_value(b, "HUGE", 1ULL << 40);
	btf__add_array(b, i32, chr, 16);
	btf__add_fwd(b, "request", BTF_FWD_STRUCT);
	btf__add_float(b, "double", 8);
	btf__add_volatile(b, i32);
	btf__add_restrict(b, btf__add_ptr(b, i32));
	btf__add_type_tag(b, "user", i32);
	i = btf__add_var(b, "counter", BTF_VAR_GLOBAL_ALLOCATED, i32);
	btf__add_datasec(b, ".data", 4);
	btf__add_datasec_var_info(b, i, 0, 4);
	btf__add_decl_tag(b, "tagged", task, 0);
	for (i = 0; i < NFILL; i++) {
		snprintf(name, sizeof(name), "filler_%04d_with_a_name_long_enough_to_fill_windows",
			 i);
		btf__add_typedef(b, name, i % 2 ? i32 : task);
	}
	/* typedef void (*btf_trace_sched_switch)(void *, bool, const struct task_struct *, ...) */
	ptask = btf__add_ptr(b, task);
	cptask = btf__add_ptr(b, btf__add_const(b, task));
	pvoid = btf__add_ptr(b, 0);
	proto = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", pvoid);
	btf__add_func_param(b, "preempt", boolean);
	btf__add_func_param(b, "prev", cptask);
	btf__add_func_param(b, "next", ptask);
	btf__add_func_param(b, "state", u32);
	btf__add_typedef(b, "btf_trace_sched_switch", btf__add_ptr(b, proto));
	/* int do_work(const char *fmt, ...) */
	cchr = btf__add_const(b, chr);
	pcchr = btf__add_ptr(b, cchr);
	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "fmt", pcchr);
	btf__add_func_param(b, NULL, 0);
	btf__add_func(b, "do_work", BTF_FUNC_GLOBAL, proto);
	btf__add_typedef(b, "fill_windows", i32);	    /* the tail of every filler's name */
	btf__add_typedef(b, "btf_trace_sched_switch", i32); /* a second one: the first counts */
	btf__add_typedef(b, "xbtf_trace_tail", i32);
	btf__add_typedef(b, "placeholder", i32); /* last: test_tail renames it */
	return b;
}

/* The raw image of btf in a memory file, as /sys/kernel/btf/vmlinux presents it. */
static int raw_fd(const void *data, size_t size)
{
	int fd = memfd_create("btf", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int btf_fd(const struct btf *b)
{
	__u32 size;
	const void *data = btf__raw_data(b, &size);

	return data ? raw_fd(data, size) : -1;
}

static void test_ids(void)
{
	struct btf *b = sample_btf();
	int fd = btf_fd(b), i;
	char name[96];

	CHECK(fd >= 0);
	if (fd < 0)
		goto cleanup;
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL),
		  btf__find_by_name_kind(b, "btf_trace_sched_switch", BTF_KIND_TYPEDEF));
	CHECK_INT(bt_btf_scan(fd, "do_work", BTF_KIND_FUNC, NULL),
		  btf__find_by_name_kind(b, "do_work", BTF_KIND_FUNC));
	CHECK_INT(bt_btf_scan(fd, "bool", BTF_KIND_TYPEDEF, NULL), 5);
	/* names in every read window, records past every noted offset */
	for (i = 0; i < NFILL; i++) {
		snprintf(name, sizeof(name), "filler_%04d_with_a_name_long_enough_to_fill_windows",
			 i);
		CHECK_INT(bt_btf_scan(fd, name, BTF_KIND_TYPEDEF, NULL),
			  btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF));
	}
	/* no such type, or not of that kind, or a name only as the tail of another */
	CHECK_INT(bt_btf_scan(fd, "btf_trace_nothing", BTF_KIND_TYPEDEF, NULL), -ENOENT);
	CHECK_INT(bt_btf_scan(fd, "task_struct", BTF_KIND_TYPEDEF, NULL), -ENOENT);
	CHECK_INT(bt_btf_scan(fd, "do_work", BTF_KIND_TYPEDEF, NULL), -ENOENT);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_tail", BTF_KIND_TYPEDEF, NULL), -ENOENT);
	CHECK_INT(bt_btf_scan(fd, "", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	/* its own string among thousands it is the tail of */
	CHECK_INT(bt_btf_scan(fd, "fill_windows", BTF_KIND_TYPEDEF, NULL),
		  btf__find_by_name_kind(b, "fill_windows", BTF_KIND_TYPEDEF));
	close(fd);
cleanup:
	btf__free(b);
}

/* Each parameter of name's prototype, rendered from the excerpt and from the whole BTF. */
static void same_params(const struct btf *whole, const struct btf *x, const char *name, int kind)
{
	const struct btf_type *a, *b;
	const struct btf_param *pa, *pb;
	char sa[128], sb[128];
	int i;

	a = btf__type_by_id(whole, btf__find_by_name_kind(whole, name, kind));
	b = btf__type_by_id(x, btf__find_by_name_kind(x, name, kind));
	CHECK(a && b);
	if (!a || !b)
		return;
	a = btf__type_by_id(whole, a->type);
	b = btf__type_by_id(x, b->type);
	if (btf_is_ptr(a)) { /* a tracepoint's typedef: a pointer to the prototype */
		CHECK(btf_is_ptr(b));
		a = btf__type_by_id(whole, a->type);
		b = btf__type_by_id(x, b->type);
	}
	CHECK(btf_is_func_proto(a) && btf_is_func_proto(b));
	CHECK_INT(btf_vlen(a), btf_vlen(b));
	if (!btf_is_func_proto(a) || !btf_is_func_proto(b) || btf_vlen(a) != btf_vlen(b))
		return;
	pa = btf_params(a);
	pb = btf_params(b);
	for (i = 0; i < btf_vlen(a); i++) {
		CHECK_INT(bt_btf_type_str(whole, pa[i].type, sa, sizeof(sa)), 0);
		CHECK_INT(bt_btf_type_str(x, pb[i].type, sb, sizeof(sb)), 0);
		CHECK_STR(sb, sa);
	}
}

static void test_excerpt(void)
{
	struct btf *b = sample_btf(), *x = NULL;
	struct bt_point pt;
	char why[192];
	int fd = btf_fd(b), id;

	CHECK(fd >= 0);
	if (fd < 0)
		goto cleanup;
	id = bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, &x);
	CHECK(id > 0 && x);
	if (!x)
		goto cleanup;
	CHECK(btf__type_cnt(x) < 20); /* the prototype's types, not the fillers */
	same_params(b, x, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	bt_point_parse("tp_btf/sched_switch", &pt);
	CHECK_INT(bt_sig_match(x, &pt,
			       "bool, const struct task_struct *, struct task_struct *, "
			       "unsigned int",
			       why, sizeof(why)),
		  1);
	CHECK_INT(bt_sig_match(x, &pt, "bool, struct task_struct *, struct task_struct *", why,
			       sizeof(why)),
		  0);
	CHECK_STR(why, "takes (bool, const struct task_struct *, struct task_struct *, "
		       "unsigned int)");
	btf__free(x);
	x = NULL;
	id = bt_btf_scan(fd, "do_work", BTF_KIND_FUNC, &x);
	CHECK(id > 0 && x);
	if (x)
		same_params(b, x, "do_work", BTF_KIND_FUNC);
	bt_point_parse("kprobe/do_work", &pt);
	CHECK_INT(bt_sig_match(x, &pt, "const char *, ...", why, sizeof(why)), 1);
	btf__free(x);
	x = NULL;
	CHECK_INT(bt_btf_scan(fd, "btf_trace_nothing", BTF_KIND_TYPEDEF, &x), -ENOENT);
	CHECK(!x);
cleanup:
	if (fd >= 0)
		close(fd);
	btf__free(x);
	btf__free(b);
}

/* A copy of btf's raw image to patch; *size its length. */
static char *raw_copy(const struct btf *b, __u32 *size)
{
	const void *data = btf__raw_data(b, size);
	char *copy = data ? malloc(*size) : NULL;

	if (copy)
		memcpy(copy, data, *size);
	return copy;
}

/* The last record (the sample's "placeholder" typedef), in a raw image. */
static struct btf_type *last_record(char *raw)
{
	struct btf_header *h = (struct btf_header *)raw;

	return (struct btf_type *)(raw + h->hdr_len + h->type_off + h->type_len -
				   sizeof(struct btf_type));
}

/* A name that is the tail of a longer string is found where it starts (a shared tail). */
static void test_tail(void)
{
	struct btf *b = sample_btf();
	__u32 size;
	char *raw = raw_copy(b, &size);
	struct btf_type *t;
	int fd;

	CHECK(raw != NULL);
	if (!raw)
		goto cleanup;
	t = last_record(raw);
	t->name_off =
		btf__type_by_id(b, btf__find_by_name_kind(b, "xbtf_trace_tail", BTF_KIND_TYPEDEF))
			->name_off +
		1;
	fd = raw_fd(raw, size);
	CHECK(fd >= 0);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_tail", BTF_KIND_TYPEDEF, NULL), btf__type_cnt(b) - 1);
	CHECK_INT(bt_btf_scan(fd, "xbtf_trace_tail", BTF_KIND_TYPEDEF, NULL), btf__type_cnt(b) - 2);
	close(fd);
cleanup:
	free(raw);
	btf__free(b);
}

static void test_malformed(void)
{
	struct btf *b = sample_btf();
	struct btf_header *h;
	__u32 size;
	char *raw = raw_copy(b, &size);
	int fd;

	CHECK(raw != NULL);
	if (!raw)
		goto cleanup;
	h = (struct btf_header *)raw;
	/* cut short: the sections run past the end of the file */
	fd = raw_fd(raw, size - 100);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	close(fd);
	/* a record of a kind no one knows: the ids after it cannot be counted */
	last_record(raw)->info = INFO(31, 0);
	fd = raw_fd(raw, size);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	close(fd);
	/* a type section whose last record runs past its end */
	last_record(raw)->info = INFO(BTF_KIND_STRUCT, 2);
	fd = raw_fd(raw, size);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	close(fd);
	/* not BTF at all, or too short for a header */
	h->magic = 0x1234;
	fd = raw_fd(raw, size);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	close(fd);
	fd = raw_fd(raw, 10);
	CHECK_INT(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, NULL), -EINVAL);
	close(fd);
cleanup:
	free(raw);
	btf__free(b);
}

/* This machine's kernel: a sample of tracepoint typedefs and functions, and the last type. */
static void test_vmlinux(void)
{
	struct btf *whole, *x = NULL;
	int fd, id, n, checked = 0;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("# no /sys/kernel/btf/vmlinux: the kernel check is skipped\n");
		return;
	}
	whole = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	CHECK(whole != NULL);
	n = whole ? (int)btf__type_cnt(whole) : 0;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(whole, id);
		const char *name = btf__name_by_offset(whole, t->name_off);
		bool tp = btf_is_typedef(t) && !strncmp(name, "btf_trace_", 10);

		if (!(tp && id % 41 == 0) && !(btf_is_func(t) && id % 1009 == 0) && id != n - 1)
			continue;
		if (!*name)
			continue;
		CHECK_INT(bt_btf_scan(fd, name, btf_kind(t), tp || btf_is_func(t) ? &x : NULL),
			  btf__find_by_name_kind(whole, name, btf_kind(t)));
		if (x && (tp || btf_is_func(t)))
			same_params(whole, x, name, btf_kind(t));
		btf__free(x);
		x = NULL;
		checked++;
	}
	printf("# %d kernel types checked\n", checked);
	CHECK(checked > 20);
	x = NULL;
	CHECK(bt_btf_scan(fd, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, &x) > 0);
	if (x)
		same_params(whole, x, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	btf__free(x);
	btf__free(whole);
	close(fd);
}

int main(void)
{
	BT_RUN(test_ids);
	BT_RUN(test_excerpt);
	BT_RUN(test_tail);
	BT_RUN(test_malformed);
	BT_RUN(test_vmlinux);
	return bt_test_done();
}
