// SPDX-License-Identifier: GPL-2.0
/*
 * 320 distinct functions (bt_many_100 ... bt_many_419) in a library no other program loads: a
 * wildcard over them is a long attach and a longer detach (6.18 removes a uprobe in ~0.13 s)
 * for the stop tests, and uprobes on this file are those tests' alone.
 */
#define F(n)                                                                    \
	__attribute__((noinline, visibility("default"))) int bt_many_##n(int x) \
	{                                                                       \
		__asm__ volatile("" : "+r"(x));                                 \
		return x + n;                                                   \
	}
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n)   \
	F10(n##0) \
	F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)

F100(1)
F100(2)
F100(3)
F10(40)
F10(41)
