/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BTSTACK_H
#define BTSTACK_H
#ifdef __cplusplus
extern "C" {
#endif
void btlib_leaf(unsigned long i);
void btlib_path_a(long n);
void btlib_path_b(long n);
#ifdef __cplusplus
}
#endif
#endif
