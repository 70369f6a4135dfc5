/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A USDT probe without systemtap's <sys/sdt.h> (not installed here): the same .note.stapsdt
 * note its STAP_PROBE() macro emits, argument-less. For the funccount workload and the attach
 * unit-test fixtures.
 */
#ifndef FC_SDT_H
#define FC_SDT_H

#define FC_SDT_PROBE(provider, name)                                                             \
	__asm__ volatile("990: nop\n"                                                            \
			 ".pushsection .note.stapsdt,\"?\",\"note\"\n"                           \
			 ".balign 4\n"                                                           \
			 ".4byte 992f-991f, 994f-993f, 3\n"                                      \
			 "991: .asciz \"stapsdt\"\n"                                             \
			 "992: .balign 4\n"                                                      \
			 "993: .8byte 990b\n"                                                    \
			 ".8byte _.stapsdt.base\n"                                               \
			 ".8byte 0\n"                                                            \
			 ".asciz \"" #provider "\"\n"                                            \
			 ".asciz \"" #name "\"\n"                                                \
			 ".asciz \"\"\n"                                                         \
			 "994: .balign 4\n"                                                      \
			 ".popsection\n"                                                         \
			 ".ifndef _.stapsdt.base\n"                                              \
			 ".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
			 ".weak _.stapsdt.base\n"                                                \
			 ".hidden _.stapsdt.base\n"                                              \
			 "_.stapsdt.base: .space 1\n"                                            \
			 ".size _.stapsdt.base, 1\n"                                             \
			 ".popsection\n"                                                         \
			 ".endif\n")

#endif
