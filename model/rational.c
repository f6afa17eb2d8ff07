/*
 * model/rational.c - exact sums of fractions for PSS-style charging.
 *
 * docs/cost-model.md section 8 charges every mapping C(m)/m and rounds the sum
 * once.  A double would drift across millions of terms, so numerators are
 * grouped by denominator m (few distinct values: m is a mapcount) and the
 * final sum is done over the least common multiple of the denominators in a
 * small arbitrary-precision integer.  The integer parts never need it; only
 * the remainders (each below 1) do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_internal.h"

/* Terms by denominator: the base hash table (base/hash.h). */
static uint64_t rehash_term(const void *context, size_t index)
{
	const struct fraction_sum *sum = context;
	return hash_u64(sum->terms[index].denominator);
}

void fraction_sum_add(struct fraction_sum *sum, unsigned __int128 numerator, uint64_t denominator)
{
	if (numerator == 0 || denominator == 0)
		return;
	struct hash_probe probe;
	uint64_t hash = hash_u64(denominator);
	for (size_t i = hash_first(&sum->index, hash, &probe); i != HASH_NONE; i = hash_next(&sum->index, &probe)) {
		if (sum->terms[i].denominator == denominator) {
			sum->terms[i].numerator += numerator;
			return;
		}
	}
	*ARRAY_PUSH(sum->terms, sum->count, sum->capacity) = (struct fraction_term){ denominator, numerator };
	hash_add(&sum->index, hash, sum->count - 1, rehash_term, sum);
}

void fraction_sum_free(struct fraction_sum *sum)
{
	free(sum->terms);
	hash_free(&sum->index);
	memset(sum, 0, sizeof(*sum));
}

/* ---- a little unsigned big integer: 32-bit limbs, least significant first ---- */

struct big {
	uint32_t *limb;
	size_t length, capacity;
};

static void big_set(struct big *x, uint64_t value)
{
	array_reserve(&x->limb, &x->capacity, 2, sizeof(uint32_t));
	x->limb[0] = (uint32_t)value;
	x->limb[1] = (uint32_t)(value >> 32);
	x->length = x->limb[1] ? 2 : (x->limb[0] ? 1 : 0);
}

static void big_mul_small(struct big *x, uint32_t k)
{
	uint64_t carry = 0;
	for (size_t i = 0; i < x->length; i++) {
		uint64_t p = (uint64_t)x->limb[i] * k + carry;
		x->limb[i] = (uint32_t)p;
		carry = p >> 32;
	}
	if (carry) {
		array_reserve(&x->limb, &x->capacity, x->length + 1, sizeof(uint32_t));
		x->limb[x->length++] = (uint32_t)carry;
	}
	while (x->length && !x->limb[x->length - 1])
		x->length--;
}

/* x / d into quotient (may alias x); returns the remainder. */
static uint32_t big_div_small(const struct big *x, uint32_t d, struct big *quotient)
{
	uint64_t rest = 0;
	if (quotient != x) {
		array_reserve(&quotient->limb, &quotient->capacity, x->length + 1, sizeof(uint32_t));
		quotient->length = x->length;
	}
	for (size_t i = x->length; i-- > 0;) {
		uint64_t cur = (rest << 32) | x->limb[i];
		quotient->limb[i] = (uint32_t)(cur / d);
		rest = cur % d;
	}
	while (quotient->length && !quotient->limb[quotient->length - 1])
		quotient->length--;
	return (uint32_t)rest;
}

static void big_add(struct big *x, const struct big *y)
{
	size_t n = x->length > y->length ? x->length : y->length;
	array_reserve(&x->limb, &x->capacity, n + 1, sizeof(uint32_t));
	for (size_t i = x->length; i < n + 1; i++)
		x->limb[i] = 0;
	uint64_t carry = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = (uint64_t)x->limb[i] + (i < y->length ? y->limb[i] : 0) + carry;
		x->limb[i] = (uint32_t)s;
		carry = s >> 32;
	}
	x->limb[n] = (uint32_t)carry;
	x->length = n + 1;
	while (x->length && !x->limb[x->length - 1])
		x->length--;
}

static int big_compare(const struct big *x, const struct big *y)
{
	if (x->length != y->length)
		return x->length < y->length ? -1 : 1;
	for (size_t i = x->length; i-- > 0;)
		if (x->limb[i] != y->limb[i])
			return x->limb[i] < y->limb[i] ? -1 : 1;
	return 0;
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Σ remainder_t / m_t exactly, as floor plus "is the fraction >= 1/2":
 * accumulate numerator / lcm, then compare numerator against multiples of
 * lcm / 2.  Denominators are mapcounts, which the kernel keeps in 32 bits.
 */
static uint64_t round_remainders(const struct fraction_sum *sum)
{
	struct big lcm = { 0 }, numerator = { 0 }, scaled = { 0 }, bound = { 0 };
	long double estimate = 0;
	big_set(&lcm, 1);
	big_set(&numerator, 0);
	for (size_t i = 0; i < sum->count; i++) {
		uint32_t m = (uint32_t)sum->terms[i].denominator;
		uint32_t a = (uint32_t)(sum->terms[i].numerator % m);
		if (a == 0)
			continue;
		estimate += (long double)a / m;
		struct big copy = { 0 };
		uint32_t g = gcd32(m, big_div_small(&lcm, m, &copy));
		free(copy.limb);
		/* N/L + a/m = (N·k + a·L/g) / (L·k) with k = m/g */
		big_div_small(&lcm, g, &scaled);
		big_mul_small(&scaled, a);
		big_mul_small(&numerator, m / g);
		big_add(&numerator, &scaled);
		big_mul_small(&lcm, m / g);
	}
	/* result = the largest q with N >= (q - 1/2)·L, i.e. 2N >= (2q - 1)·L */
	big_mul_small(&numerator, 2);
	/* start just below the floating-point estimate; the loop makes it exact */
	uint64_t q = estimate > 3 ? (uint64_t)floorl(estimate) - 2 : 0;
	for (;; q++) {
		/* bound = (2q + 1)·L: once 2N is below it, q is the rounded value */
		big_set(&bound, 0);
		big_add(&bound, &lcm);
		big_mul_small(&bound, (uint32_t)(2 * q + 1));
		if (big_compare(&numerator, &bound) < 0)
			break;
	}
	free(lcm.limb);
	free(numerator.limb);
	free(scaled.limb);
	free(bound.limb);
	return q;
}

/*
 * The rounded sum of the remainders, decided in 64-bit fixed point where it
 * can be: each term a/m contributes floor(a·2^64 / m), so with n terms the
 * true sum·2^64 lies in [T, T + n).  When that interval holds no rounding
 * boundary (k + 1/2)·2^64 (all but sums within n·2^-64 of a half), T alone
 * says the result, in one pass.  Otherwise the exact sum over the lcm
 * decides: the lcm grows with the number of distinct mapcounts, so that
 * path costs O(n^2) and is taken only for such near-halves (20,000 distinct
 * mapcounts took 22 s when it was always taken).  Denominators are
 * mapcounts (below 2^31 from kpages, internal.h); a count of mappings seen
 * above 2^32 would keep the fixed-point result, within n·2^-64.
 */
static uint64_t round_remainders_fast(const struct fraction_sum *sum, bool *decided)
{
	unsigned __int128 fixed = 0, n = 0;
	bool wide = false;              /* the exact path takes 32-bit denominators only */
	const unsigned __int128 half = (unsigned __int128)1 << 63;
	for (size_t i = 0; i < sum->count; i++) {
		uint64_t m = sum->terms[i].denominator;
		uint64_t a = (uint64_t)(sum->terms[i].numerator % m);
		if (a == 0)
			continue;
		fixed += ((unsigned __int128)a << 64) / m;   /* a < m: below 2^64 */
		n++;
		wide |= m > UINT32_MAX;
	}
	uint64_t low = (uint64_t)((fixed + half) >> 64);
	uint64_t high = (uint64_t)((fixed + (n ? n - 1 : 0) + half) >> 64);
	*decided = low == high || wide;
	return low;
}

uint64_t fraction_sum_round(const struct fraction_sum *sum)
{
	unsigned __int128 whole = 0;
	for (size_t i = 0; i < sum->count; i++)
		whole += sum->terms[i].numerator / sum->terms[i].denominator;
	bool decided;
	uint64_t remainders = round_remainders_fast(sum, &decided);
	return (uint64_t)whole + (decided ? remainders : round_remainders(sum));
}

double fraction_sum_value(const struct fraction_sum *sum)
{
	long double total = 0;
	for (size_t i = 0; i < sum->count; i++)
		total += (long double)sum->terms[i].numerator / sum->terms[i].denominator;
	return (double)total;
}
