// SPDX-License-Identifier: GPL-2.0
/* The shared-library half of fc_work: a function funccount finds through the process's maps. */
__attribute__((noinline, visibility("default"))) int bt_lib_work(int x)
{
	__asm__ volatile("" : "+r"(x)); /* keeps the call and the body */
	return x + 1;
}
