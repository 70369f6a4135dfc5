/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unsigned LEB128 (protobuf's varint): 7 bits a byte, low first, the high bit saying one more
 * follows. The pprof writer's wire format and the stack summaries' row ids.
 */
#ifndef BT_VARINT_H
#define BT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define BT_VARINT_MAX 10 /* bytes of the largest, a uint64_t */

/* v into out (room for BT_VARINT_MAX); the bytes written. */
static inline size_t bt_varint_put(uint64_t v, uint8_t *out)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* The value at *p (before end), *p moved past it; 0 where it runs past end. */
static inline uint64_t bt_varint_get(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

#endif
