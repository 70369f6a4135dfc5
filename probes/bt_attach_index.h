/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target index inside a program's instructions, for kernels without attach cookies
 * (probes/bt_attach.bpf.h): a 64-bit immediate load whose high half is this tag and whose low
 * half the attach layer sets to the index in each program it loads.
 */
#ifndef BT_ATTACH_INDEX_H
#define BT_ATTACH_INDEX_H

#define BT_ATTACH_INDEX_TAG 0x62746978u /* "btix" */
#define BT_ATTACH_INDEX_TAG_STR "0x6274697800000000"

/*
 * The same for the traced function's number of arguments, in every fentry/fexit program the
 * attach layer loads: where the kernel has no bpf_get_func_arg() and bpf_get_func_ret() (5.17),
 * a program serving functions of any signature reads them from its context at offsets only
 * this number makes safe (bt_fentry_args(), bt_fexit_ret() in probes/bt_attach.bpf.h).
 */
#define BT_ATTACH_NARGS_TAG 0x62746e61u /* "btna" */
#define BT_ATTACH_NARGS_TAG_STR "0x62746e6100000000"

#endif
