/*
 * NCCL_IB_HCA (nccl_hca.h).
 */
#include "sim/readers/nccl_hca.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does entry @e (@len bytes, "mlx5_1" or "mlx5_1:1") match NIC @i? */
static int entry_matches(const char *e, size_t len, int exact, uint32_t i)
{
	const char *colon = memchr(e, ':', len);
	size_t name_len = colon ? (size_t)(colon - e) : len;
	char dev[32];
	size_t dev_len = (size_t)snprintf(dev, sizeof(dev), "mlx5_%" PRIu32, i);

	if (colon) {
		/* a port: the NIC's one port is 1 */
		char port[16];
		size_t plen = len - name_len - 1;

		if (plen == 0 || plen >= sizeof(port))
			return 0;
		memcpy(port, colon + 1, plen);
		port[plen] = '\0';
		if (strtoul(port, NULL, 10) != 1)
			return 0;
	}
	if (exact)
		return name_len == dev_len && !memcmp(e, dev, dev_len);
	return name_len <= dev_len && !memcmp(e, dev, name_len);
}

/* @value past its prefixes: '^' (exclude what follows), then '=' (exact names). */
static const char *hca_list(const char *value, int *exclude, int *exact)
{
	*exclude = *value == '^';
	value += *exclude;
	*exact = *value == '=';
	return value + *exact;
}

int nccl_hca_mask(const char *value, uint32_t n_nics, uint64_t *mask, char *why, size_t len)
{
	int exclude, exact;
	const char *v = hca_list(value, &exclude, &exact);
	uint64_t m = 0;

	for (const char *e = v;;) {
		const char *end = strchr(e, ',');
		size_t n = end ? (size_t)(end - e) : strlen(e);

		/* an empty entry matches nothing, as NCCL's parser skips it */
		for (uint32_t i = 0; n && i < n_nics && i < 64; i++)
			if (entry_matches(e, n, exact, i))
				m |= 1ULL << i;
		if (!end)
			break;
		e = end + 1;
	}
	if (exclude)
		m = ~m & (n_nics >= 64 ? UINT64_MAX : (1ULL << n_nics) - 1);
	if (!m) {
		snprintf(why, len,
			 "NCCL_IB_HCA \"%s\" leaves none of a server's %" PRIu32
			 " NICs (mlx5_0..mlx5_%" PRIu32 ", port 1)",
			 value, n_nics, n_nics - 1);
		return -EINVAL;
	}
	*mask = m;
	return 0;
}

unsigned nccl_hca_unmatched(const char *value, uint32_t n_nics, char *out, size_t len)
{
	int exclude, exact;
	const char *v = hca_list(value, &exclude, &exact);
	unsigned bad = 0;
	size_t at = 0;

	if (len)
		out[0] = '\0';
	for (const char *e = v;;) {
		const char *end = strchr(e, ',');
		size_t n = end ? (size_t)(end - e) : strlen(e);
		int hit = 0;

		for (uint32_t i = 0; n && i < n_nics && i < 64 && !hit; i++)
			hit = entry_matches(e, n, exact, i);
		if (n && !hit) {
			if (at < len)
				at += (size_t)snprintf(out + at, len - at, "%s%.*s", bad ? "," : "",
						       (int)n, e);
			bad++;
		}
		if (!end)
			break;
		e = end + 1;
	}
	return bad;
}
