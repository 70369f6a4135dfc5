// SPDX-License-Identifier: GPL-2.0
/*
 * Probe variants (lib/attach/bt_variant.c): signatures read from BTF, and which declared alternative
 * wins, on BTF built here to look like a 5.10, a 6.1 and a 6.6 kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "bt_variant.h"
#include "harness.h"
#include "opensnoop_probes.h"
#include "smpcalls_probes.h"

enum era { OLD_5_10, MID_6_1, NEW_6_6 };

/* Tracepoint typedef: void (*btf_trace_NAME)(void *, params...). */
static void add_tp(struct btf *btf, const char *name, const int *params, int n, int void_ptr)
{
	char tname[128];
	int proto, i;

	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "__data", void_ptr);
	for (i = 0; i < n; i++)
		btf__add_func_param(btf, NULL, params[i]);
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	btf__add_typedef(btf, tname, btf__add_ptr(btf, proto));
}

static struct btf *kernel_btf(enum era era)
{
	struct btf *btf = btf__new_empty();
	int uint, vptr, rq, rqp, q, qp, bio, biop, status, proto;

	uint = btf__add_int(btf, "unsigned int", 4, 0);
	vptr = btf__add_ptr(btf, 0);
	rq = btf__add_struct(btf, "request", 0);
	rqp = btf__add_ptr(btf, rq);
	q = btf__add_struct(btf, "request_queue", 0);
	qp = btf__add_ptr(btf, q);
	bio = btf__add_struct(btf, "bio", 0);
	biop = btf__add_ptr(btf, bio);
	status = btf__add_typedef(btf, "blk_status_t", btf__add_int(btf, "u8", 1, 0));
	(void)bio;

	if (era == OLD_5_10) {
		int issue[] = { qp, rqp };
		int complete[] = { rqp, uint, uint };

		add_tp(btf, "block_rq_issue", issue, 2, vptr);
		add_tp(btf, "block_rq_insert", issue, 2, vptr);
		add_tp(btf, "block_rq_complete", complete, 3, vptr);
		/* blk_account_io_start(struct request *, bool) */
		proto = btf__add_func_proto(btf, 0);
		btf__add_func_param(btf, "rq", rqp);
		btf__add_func_param(btf, "new_io", uint);
		btf__add_func(btf, "blk_account_io_start", BTF_FUNC_GLOBAL, proto);
	} else {
		int issue[] = { rqp };
		int complete[] = { rqp, status, uint };
		int bioq[] = { biop };

		add_tp(btf, "block_rq_issue", issue, 1, vptr);
		add_tp(btf, "block_rq_insert", issue, 1, vptr);
		add_tp(btf, "block_rq_complete", complete, 3, vptr);
		add_tp(btf, "block_bio_queue", bioq, 1, vptr);
		if (era == NEW_6_6) {
			add_tp(btf, "block_io_start", issue, 1, vptr);
			add_tp(btf, "block_io_done", issue, 1, vptr);
		} else {
			proto = btf__add_func_proto(btf, 0);
			btf__add_func_param(btf, "rq", rqp);
			btf__add_func(btf, "__blk_account_io_start", BTF_FUNC_GLOBAL, proto);
		}
	}
	return btf;
}

static void test_point_parse(void)
{
	struct bt_point pt;

	bt_point_parse("?tp_btf/block_rq_issue", &pt);
	CHECK_INT(pt.kind, BT_POINT_TP_BTF);
	CHECK_STR(pt.name, "block_rq_issue");
	bt_point_parse("raw_tp/block_rq_issue", &pt);
	CHECK_INT(pt.kind, BT_POINT_RAW_TP);
	bt_point_parse("tracepoint/block/block_io_start", &pt);
	CHECK_INT(pt.kind, BT_POINT_TRACEPOINT);
	CHECK_STR(pt.category, "block");
	CHECK_STR(pt.name, "block_io_start");
	bt_point_parse("?kretprobe/blk_account_io_done", &pt);
	CHECK_INT(pt.kind, BT_POINT_KPROBE);
	CHECK_STR(pt.name, "blk_account_io_done");
	bt_point_parse("fexit/vfs_read", &pt);
	CHECK_INT(pt.kind, BT_POINT_FENTRY);
	bt_point_parse("uprobe", &pt);
	CHECK_INT(pt.kind, BT_POINT_OTHER);
	bt_point_parse("tp_btf/", &pt);
	CHECK_INT(pt.kind, BT_POINT_OTHER);
	bt_point_parse("tracepoint/nocategory", &pt);
	CHECK_INT(pt.kind, BT_POINT_OTHER);
}

static void test_type_str(void)
{
	struct btf *btf = btf__new_empty();
	int ch, cch, p, pp;
	char buf[64];

	ch = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	cch = btf__add_const(btf, ch);
	p = btf__add_ptr(btf, cch);
	pp = btf__add_ptr(btf, p);
	CHECK_INT(bt_btf_type_str(btf, pp, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "const char **");
	CHECK_INT(bt_btf_type_str(btf, 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "void");
	CHECK_INT(bt_btf_type_str(btf, pp, buf, 8), -ENOSPC);
	btf__free(btf);
}

static void test_sig_match(void)
{
	struct btf *old = kernel_btf(OLD_5_10), *cur = kernel_btf(NEW_6_6);
	struct bt_point pt;
	char why[128];

	bt_point_parse("tp_btf/block_rq_issue", &pt);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, "struct  request*", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, "?", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, NULL, why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request_queue *, struct request *", why,
			       sizeof(why)),
		  0);
	CHECK_STR(why, "takes (struct request *)");
	CHECK_INT(bt_sig_match(old, &pt, "struct request *", why, sizeof(why)), 0);
	CHECK_STR(why, "takes (struct request_queue *, struct request *)");
	CHECK_INT(bt_sig_match(old, &pt, "struct request_queue *, struct request *", why,
			       sizeof(why)),
		  1);
	CHECK_INT(bt_sig_match(cur, &pt, "", why, sizeof(why)), 0);	/* has parameters */
	CHECK_INT(bt_sig_match(cur, &pt, "void", why, sizeof(why)), 0); /* likewise */

	bt_point_parse("raw_tp/block_rq_complete", &pt);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *, blk_status_t, unsigned int", why,
			       sizeof(why)),
		  1);
	CHECK_INT(bt_sig_match(old, &pt, "struct request *, blk_status_t, unsigned int", why,
			       sizeof(why)),
		  0);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *, blk_status_t", why, sizeof(why)), 0);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *, ...", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(old, &pt, "struct request *, ...", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, "struct bio *, ...", why, sizeof(why)), 0);
	bt_point_parse("tp_btf/block_rq_issue", &pt);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *, ...", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(cur, &pt, "...", why, sizeof(why)), 1);

	bt_point_parse("tp_btf/block_io_start", &pt);
	CHECK_INT(bt_sig_match(cur, &pt, "struct request *", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(old, &pt, "struct request *", why, sizeof(why)), -ENOENT);
	CHECK_STR(why, "no such tracepoint in the kernel's BTF");

	bt_point_parse("kprobe/blk_account_io_start", &pt);
	CHECK_INT(bt_sig_match(old, &pt, "struct request *, unsigned int", why, sizeof(why)), 1);
	CHECK_INT(bt_sig_match(old, &pt, "struct request *", why, sizeof(why)), 0);
	CHECK_INT(bt_sig_match(cur, &pt, NULL, why, sizeof(why)), -ENOENT);
	CHECK_STR(why, "no such function in the kernel's BTF");
	btf__free(old);
	btf__free(cur);
}

/* A fake kernel: programs by name -> section, its BTF, and whether tp_btf/kprobes work. */
struct fake {
	struct btf *btf;
	bool tp_btf;
	bool kprobes;
	int calls;
};

static const struct {
	const char *prog, *sec;
} sections[] = {
	{ "issue_btf", "tp_btf/block_rq_issue" },
	{ "issue_raw", "raw_tp/block_rq_issue" },
	{ "issue_btf_q", "tp_btf/block_rq_issue" },
	{ "issue_raw_q", "raw_tp/block_rq_issue" },
	{ "start_btf", "tp_btf/block_io_start" },
	{ "start_raw", "raw_tp/block_io_start" },
	{ "start_kp", "kprobe/__blk_account_io_start" },
	{ "start_kp_old", "kprobe/blk_account_io_start" },
	{ "plain_btf", "tp_btf/block_rq_complete" },
	{ "plain_raw", "raw_tp/block_rq_complete" },
};

static int fake_fits(void *ctx, const char *prog, const char *sig, char *why, size_t whysize)
{
	struct fake *f = ctx;
	struct bt_point pt;
	size_t i;

	f->calls++;
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!strcmp(sections[i].prog, prog))
			break;
	if (i == sizeof(sections) / sizeof(sections[0]))
		return false;
	bt_point_parse(sections[i].sec, &pt);
	if (bt_sig_match(f->btf, &pt, sig, why, whysize) <= 0)
		return false;
	if (pt.kind == BT_POINT_TP_BTF && !f->tp_btf) {
		snprintf(why, whysize, "tp_btf not available");
		return false;
	}
	if (pt.kind == BT_POINT_KPROBE && !f->kprobes) {
		snprintf(why, whysize, "kernel built without kprobes");
		return false;
	}
	return true;
}

static const struct bt_probe issue[] = {
	{ "issue_btf", "issue_raw", "struct request *" },
	{ "issue_btf_q", "issue_raw_q", "struct request_queue *, struct request *", BT_PROBE_ALT },
	{ "plain_btf", "plain_raw" }, /* the next group */
	{ NULL },
};

static const struct bt_probe start[] = {
	{ "start_btf", "start_raw", "struct request *", BT_PROBE_OPTIONAL },
	{ "start_kp", NULL, "struct request *", BT_PROBE_ALT },
	{ "start_kp_old", NULL, "struct request *, ?", BT_PROBE_ALT },
	{ NULL },
};

static const char *choose(const struct bt_probe *p, enum era era, bool tp_btf, bool kprobes,
			  struct bt_choice *c)
{
	struct fake f = { .btf = kernel_btf(era), .tp_btf = tp_btf, .kprobes = kprobes };

	const struct bt_probe_ops ops = { .fits = fake_fits, .ctx = &f };

	bt_probe_choose(p, &ops, c);
	btf__free(f.btf);
	return c->chosen ? c->chosen : "(none)";
}

static void test_choose_by_signature(void)
{
	struct bt_choice c;

	CHECK_STR(choose(issue, NEW_6_6, true, false, &c), "issue_btf");
	CHECK_INT(c.n, 2); /* the group is two entries; plain_btf starts the next */
	CHECK_STR(choose(issue, NEW_6_6, false, false, &c), "issue_raw");
	CHECK_STR(choose(issue, OLD_5_10, true, false, &c), "issue_btf_q");
	CHECK_STR(choose(issue, OLD_5_10, false, false, &c), "issue_raw_q");
	CHECK_INT(c.n, 2);
	CHECK_INT(c.optional, false);
	/* The next group on its own: a plain {prog, fallback} pair, as before variants. */
	CHECK_STR(choose(issue + 2, OLD_5_10, true, false, &c), "plain_btf");
	CHECK_INT(c.n, 1);
	CHECK_STR(choose(issue + 2, OLD_5_10, false, false, &c), "plain_raw");
}

static void test_choose_tracepoint_or_function(void)
{
	struct bt_choice c;

	CHECK_STR(choose(start, NEW_6_6, true, true, &c), "start_btf");
	CHECK_STR(choose(start, NEW_6_6, false, true, &c), "start_raw");
	CHECK_INT(c.n, 3);
	CHECK_INT(c.optional, true);
	/* 6.1: no block_io_start; the function is __blk_account_io_start. */
	CHECK_STR(choose(start, MID_6_1, true, true, &c), "start_kp");
	/* 5.10: blk_account_io_start(rq, new_io). */
	CHECK_STR(choose(start, OLD_5_10, true, true, &c), "start_kp_old");
	/* No kprobes: nothing fits, and each reason is kept. */
	CHECK_STR(choose(start, MID_6_1, true, false, &c), "(none)");
	CHECK(strstr(c.why, "'start_btf': no such tracepoint in the kernel's BTF") != NULL);
	CHECK(strstr(c.why, "'start_kp': kernel built without kprobes") != NULL);
	CHECK(strstr(c.why, "'start_kp_old': no such function") != NULL);
}

static void test_unknown_program(void)
{
	static const struct bt_probe bad[] = { { "nonesuch", NULL }, { NULL } };
	struct bt_choice c;

	CHECK_STR(choose(bad, NEW_6_6, true, true, &c), "(none)");
	CHECK_INT(c.n, 1);
}

/*
 * Whole tables: a kernel as the probe points it lacks (program names), the needs it meets,
 * and its lockdown; what the table loads, as "prog prog ..." in table order, or the message.
 */
struct kernel {
	const char *absent; /* ",prog,prog," */
	unsigned int needs; /* BT_NEEDS_* met, lockdown aside */
	bool lockdown;	    /* confidentiality: no kernel reads */
	bool denied;	    /* tracefs unreadable */
};

static int kernel_fits(void *ctx, const char *prog, const char *sig, char *why, size_t whysize)
{
	const struct kernel *k = ctx;
	char key[64];

	(void)sig;
	if (k->denied)
		return -EACCES;
	snprintf(key, sizeof(key), ",%s,", prog);
	if (k->absent && strstr(k->absent, key)) {
		snprintf(why, whysize, "no such probe point");
		return 0;
	}
	return 1;
}

static bool kernel_has(void *ctx, const char *prog, unsigned int need, char *why, size_t whysize)
{
	const struct kernel *k = ctx;

	(void)prog;
	if (need == BT_NEEDS_KERNEL_READS && k->lockdown) {
		snprintf(why, whysize, "which lockdown=confidentiality refuses");
		return false;
	}
	return need == BT_NEEDS_KERNEL_READS || (k->needs & need);
}

static char result[512];

static const char *select_on(const struct bt_probe *probes, const struct kernel *k)
{
	const struct bt_probe_ops ops = { .fits = kernel_fits,
					  .has = kernel_has,
					  .ctx = (void *)k };
	const char *chosen[32];
	char msg[256];
	size_t i, len = 0;
	int err;

	err = bt_probes_select(probes, &ops, chosen, msg, sizeof(msg));
	if (err) {
		snprintf(result, sizeof(result), "%d: %s", err, msg);
		return result;
	}
	result[0] = '\0';
	for (i = 0; i < bt_probes_count(probes); i++)
		if (chosen[i])
			len += snprintf(result + len, sizeof(result) - len, "%s%s", len ? " " : "",
					chosen[i]);
	return result;
}

/* cmd/opensnoop.c's tables, without -F and with it: the command's own */
#define open_plain opensnoop_probes
#define open_full opensnoop_probes_full

static void test_table_opensnoop(void)
{
	struct kernel k618 = { .needs = FULL_BTF, .lockdown = true }; /* this machine */
	struct kernel k61 = { .needs = BT_NEEDS_LOOP };		      /* Debian 12 */
	struct kernel k61_locked = { .needs = BT_NEEDS_LOOP, .lockdown = true };
	struct kernel k515 = { .needs = 0 }; /* no bpf_loop() */
	struct kernel arm64 = { .absent = ",enter_open,exit_open,exit_open_full,exit_open_fullr,",
				.needs = FULL_BTF };
	struct kernel no_exit = { .absent = ",exit_openat2,", .needs = FULL_BTF };
	struct kernel no_enter = { .absent = ",enter_open,", .needs = FULL_BTF };
	struct kernel none = { .absent =
				       ",enter_open,exit_open,enter_openat,exit_openat,"
				       "enter_openat2,exit_openat2,exit_open_full,exit_open_fullr,"
				       "exit_openat_full,exit_openat_fullr," };
	struct kernel denied = { .denied = true };

	CHECK_STR(select_on(open_plain, &k618),
		  "enter_open exit_open enter_openat exit_openat enter_openat2 exit_openat2");
	/* no -F: needs are not asked, so a kernel without them is fine */
	CHECK_STR(select_on(open_plain, &k515),
		  "enter_open exit_open enter_openat exit_openat enter_openat2 exit_openat2");
	CHECK_STR(select_on(open_plain, &arm64),
		  "enter_openat exit_openat enter_openat2 exit_openat2");
	/* an entry only with its return, a return only with its entry */
	CHECK_STR(select_on(open_plain, &no_exit), "enter_open exit_open enter_openat exit_openat");
	CHECK_STR(select_on(open_plain, &no_enter),
		  "enter_openat exit_openat enter_openat2 exit_openat2");
	CHECK_STR(select_on(open_plain, &none),
		  "-95: this kernel has none of the open, openat and openat2 syscall tracepoints");
	CHECK_STR(select_on(open_plain, &denied), "-13: ");

	/* -F: BTF pointers wherever bpf_rdonly_cast() is, lockdown or not */
	CHECK_STR(select_on(open_full, &k618),
		  "enter_open exit_open_full enter_openat exit_openat_full enter_openat2 "
		  "exit_openat2_full");
	/* the fallback: kernel reads (6.1 without lockdown) */
	CHECK_STR(select_on(open_full, &k61),
		  "enter_open exit_open_fullr enter_openat exit_openat_fullr enter_openat2 "
		  "exit_openat2_fullr");
	CHECK_STR(select_on(open_full, &arm64),
		  "enter_openat exit_openat_full enter_openat2 exit_openat2_full");
	CHECK_STR(select_on(open_full, &k61_locked),
		  "-95: -F needs bpf_loop() (Linux 5.17) and bpf_rdonly_cast() (6.2), or kernel "
		  "reads, which lockdown=confidentiality refuses");
	CHECK_STR(select_on(open_full, &k515),
		  "-95: -F needs bpf_loop() (Linux 5.17) and bpf_rdonly_cast() (6.2), or kernel "
		  "reads");
}

/* cmd/smpcalls.c's table: the csd tracepoints, or else the kprobes, all of one */
#define smpcalls smpcalls_probes

static void test_table_smpcalls(void)
{
	struct kernel k618 = { .absent = ",kp_single,kret_single,kp_many,kret_many,kp_ipi,"
					 "kret_ipi," }; /* no kprobes here */
	struct kernel k61 = { .absent = ",csd_queue_raw,csd_entry_raw,csd_exit_raw," };
	struct kernel k61_no_ipi_ret = { .absent = ",csd_queue_raw,csd_entry_raw,csd_exit_raw,"
						   "kret_ipi," };
	struct kernel k61_no_many = { .absent = ",csd_queue_raw,csd_entry_raw,csd_exit_raw,"
						"kp_many," };
	struct kernel half_csd = { .absent = ",csd_exit_raw," };
	struct kernel nothing = { .absent = ",csd_queue_raw,kp_single," };

	CHECK_STR(select_on(smpcalls, &k618), "csd_queue_raw csd_entry_raw csd_exit_raw");
	/* with both there, the tracepoints; the kprobes are not asked */
	CHECK_STR(select_on(smpcalls, &(struct kernel){ 0 }),
		  "csd_queue_raw csd_entry_raw csd_exit_raw");
	CHECK_STR(select_on(smpcalls, &k61),
		  "kp_single kret_single kp_many kret_many kp_ipi kret_ipi");
	CHECK_STR(select_on(smpcalls, &k61_no_ipi_ret), "kp_single kret_single kp_many kret_many");
	CHECK_STR(select_on(smpcalls, &k61_no_many), "kp_single kret_single kp_ipi kret_ipi");
	CHECK(strstr(select_on(smpcalls, &half_csd),
		     "-95: this kernel cannot attach 'csd_exit_raw': 'csd_exit_raw': no such probe "
		     "point") != NULL);
	CHECK(strstr(select_on(smpcalls, &nothing),
		     "-95: this kernel cannot attach 'csd_queue_raw': 'csd_queue_raw': no such") !=
	      NULL);
}

int main(void)
{
	BT_RUN(test_point_parse);
	BT_RUN(test_type_str);
	BT_RUN(test_sig_match);
	BT_RUN(test_choose_by_signature);
	BT_RUN(test_choose_tracepoint_or_function);
	BT_RUN(test_unknown_program);
	BT_RUN(test_table_opensnoop);
	BT_RUN(test_table_smpcalls);
	return bt_test_done();
}
