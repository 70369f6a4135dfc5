// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>

#include "bt_hist.h"

unsigned int bt_log2_slot(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 1;
}

static void print_stars(FILE *out, uint64_t val, uint64_t val_max, int width)
{
	char buf[64];
	int n;

	/* Python's loop adds a star while i <= width * val / val_max - 1: floor of the ratio. */
	n = val_max ? (int)((unsigned __int128)width * val / val_max) : 0;
	if (n > width)
		n = width;
	memset(buf, '*', n);
	if (val > val_max && n > 0)
		buf[n - 1] = '+';
	fprintf(out, "|%-*.*s|\n", width, n, buf);
}

void bt_hist_log2_range(int slot, uint64_t *low, uint64_t *high)
{
	/* Python's (1 << i) >> 1 and (1 << i) - 1, without overflowing at slot 64 */
	*low = slot >= 64 ? 1ULL << 63 : (1ULL << slot) >> 1;
	*high = slot >= 64 ? ~0ULL : (1ULL << slot) - 1;
	if (*low == *high)
		*low -= 1;
}

void bt_hist_print_log2(FILE *out, const uint64_t *vals, int nslots, const char *val_type)
{
	uint64_t val_max = 0;
	int idx_max = -1, i, stars;
	bool wide;

	for (i = 0; i < nslots; i++) {
		if (vals[i] > 0)
			idx_max = i;
		if (vals[i] > val_max)
			val_max = vals[i];
	}
	if (idx_max <= 0)
		return;
	wide = idx_max > 32;
	stars = wide ? 20 : 40;
	if (wide)
		fprintf(out, "               %-29s : count     distribution\n", val_type);
	else
		fprintf(out, "     %-19s : count     distribution\n", val_type);
	for (i = 1; i <= idx_max; i++) {
		uint64_t low, high;

		bt_hist_log2_range(i, &low, &high);
		fprintf(out, wide ? "%20llu -> %-20llu : %-8llu " : "%10llu -> %-10llu : %-8llu ",
			(unsigned long long)low, (unsigned long long)high,
			(unsigned long long)vals[i]);
		print_stars(out, vals[i], val_max, stars);
	}
}

void bt_hist_print_linear(FILE *out, const uint64_t *vals, int nslots, const char *val_type)
{
	uint64_t val_max = 0;
	int idx_max = -1, i;

	for (i = 0; i < nslots; i++) {
		if (vals[i] > 0)
			idx_max = i;
		if (vals[i] > val_max)
			val_max = vals[i];
	}
	if (idx_max < 0)
		return;
	fprintf(out, "     %-13s : count     distribution\n", val_type);
	for (i = 0; i <= idx_max; i++) {
		fprintf(out, "        %-10d : %-8llu ", i, (unsigned long long)vals[i]);
		print_stars(out, vals[i], val_max, 40);
	}
}

void bt_hist_print_avg(FILE *out, uint64_t total, uint64_t count, const char *unit)
{
	if (!count)
		return;
	fprintf(out, "\navg = %llu %s, total: %llu %s, count: %llu\n\n",
		(unsigned long long)(total / count), unit, (unsigned long long)total, unit,
		(unsigned long long)count);
}
