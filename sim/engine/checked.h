/*
 * Checked 64-bit arithmetic for sizes, rates and times: the one place that
 * decides whether a sum or a product of values taken from input fits.
 * Each function returns 0 and writes its result, or -ERANGE and leaves
 * *@out alone when the exact result does not fit in 64 bits. Products
 * that are divided afterwards (bytes x 8e12 / rate, delay x rate / 8e12)
 * go through a 128-bit intermediate, so they are exact up to the final
 * result, not up to the product.
 */
#ifndef ROCESIM_CHECKED_H
#define ROCESIM_CHECKED_H

#include <errno.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 ck_u128;

static inline int ck_add(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return -ERANGE;
	*out = r;
	return 0;
}

static inline int ck_mul(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return -ERANGE;
	*out = r;
	return 0;
}

/* @a x @b / @c rounded down (@c > 0). */
static inline int ck_muldiv(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	ck_u128 r = (ck_u128)a * b / c;

	if (r > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)r;
	return 0;
}

/* @a x @b / @c rounded up (@c > 0). */
static inline int ck_muldiv_up(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	uint64_t p64;
	ck_u128 p, r;

	/* the packet path's case: a product that fits, a 64-bit division */
	if (!__builtin_mul_overflow(a, b, &p64)) {
		*out = p64 / c + (p64 % c != 0);
		return 0;
	}
	p = (ck_u128)a * b;
	r = p / c + (p % c != 0);

	if (r > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)r;
	return 0;
}

/* @a + @b, or UINT64_MAX when it does not fit ("never", "more than any"). */
static inline uint64_t ck_add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

#endif
