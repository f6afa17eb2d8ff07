/*
 * The fit of each step's cost (model/fit.c) on synthetic measurements whose
 * coefficients are known: exact data gives them back exactly; data with a
 * known disturbance gives them back within their stated errors, and the
 * residual is the disturbance's own size.  The robust fit (what the
 * calibration uses) gets them back from measurements two of which a loaded
 * machine spoilt, where least squares does not; and a step whose cost comes
 * out below 0 is dropped, said so, and the others fitted again.
 */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "test.h"

/* time = 80 us per fork + 1.5 per VMA + 0.9 per PTE page + 0.02 per PTE,
 * over layouts varying one thing at a time from a base, as calibrate does */
static const double truth[4] = { 80, 1.5, 0.9, 0.02 };
static const double layouts[][4] = {
	{ 1, 140, 10, 100 }, { 1, 240, 10, 100 }, { 1, 340, 10, 100 }, { 1, 540, 10, 100 },
	{ 1, 140, 20, 100 }, { 1, 140, 40, 100 }, { 1, 140, 80, 100 },
	{ 1, 140, 10, 600 }, { 1, 140, 10, 2100 }, { 1, 140, 10, 5100 },
};
#define LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static double time_of(const double *counts)
{
	double sum = 0;
	for (size_t j = 0; j < 4; j++)
		sum += truth[j] * counts[j];
	return sum;
}

static void test_exact(void)
{
	double y[LAYOUTS];
	for (size_t i = 0; i < LAYOUTS; i++)
		y[i] = time_of(layouts[i]);
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&layouts[0][0], y, LAYOUTS, 4, &fit, &error), 0);
	for (size_t j = 0; j < 4; j++) {
		CU_ASSERT(fabs(fit.coefficients[j] - truth[j]) < 1e-9 * (1 + truth[j]));
		CU_ASSERT(fit.errors[j] < 1e-6);
	}
	CU_ASSERT(fit.residual < 1e-6);
	CU_ASSERT(fabs(fit.r_squared - 1) < 1e-12);
	/* a layout held out of the fit: 80 + 1.5 x 400 + 0.9 x 50 + 0.02 x 3000 = 785 */
	const double held_out[4] = { 1, 400, 50, 3000 };
	CU_ASSERT(fabs(fit_predict(&fit, held_out) - 785) < 1e-6);
}

static void test_disturbed(void)
{
	/* +-2 us alternating: zero mean, known size */
	double y[LAYOUTS];
	for (size_t i = 0; i < LAYOUTS; i++)
		y[i] = time_of(layouts[i]) + (i % 2 ? 2 : -2);
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&layouts[0][0], y, LAYOUTS, 4, &fit, &error), 0);
	for (size_t j = 0; j < 4; j++) {
		CU_ASSERT(fit.errors[j] > 0);
		CU_ASSERT(fabs(fit.coefficients[j] - truth[j]) < 3 * fit.errors[j]);
	}
	/* residual: sqrt(RSS / (10 - 4)); RSS is at most 10 x 2^2 */
	CU_ASSERT(fit.residual > 0 && fit.residual <= sqrt(40.0 / 6) + 1e-9);
	CU_ASSERT(fit.r_squared > 0.99 && fit.r_squared < 1);
	CU_ASSERT_EQUAL(fit.observations, LAYOUTS);
}

/* A straight line, whose slope's standard error has a closed form:
 * s / sqrt(sum (x - mean)^2), s^2 = RSS / (n - 2). */
static void test_line_error(void)
{
	double x[6][2], y[6], mean = 3.5, spread = 0;
	const double disturbance[6] = { 1, -1, -1, 1, 1, -1 };
	for (int i = 0; i < 6; i++) {
		x[i][0] = 1;
		x[i][1] = i + 1;
		y[i] = 2 * (i + 1) + 1 + disturbance[i];
		spread += (i + 1 - mean) * (i + 1 - mean);
	}
	struct fit_result fit;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&x[0][0], y, 6, 2, &fit, &error), 0);
	/* the residuals worked out: slope and intercept refitted by the formulas */
	double sxy = 0, rss = 0;
	for (int i = 0; i < 6; i++)
		sxy += (i + 1 - mean) * (y[i] - (2 * mean + 1));
	double slope = sxy / spread, intercept = (2 * mean + 1) - slope * mean;
	for (int i = 0; i < 6; i++)
		rss += (y[i] - intercept - slope * (i + 1)) * (y[i] - intercept - slope * (i + 1));
	CU_ASSERT(fabs(fit.coefficients[1] - slope) < 1e-9);
	CU_ASSERT(fabs(fit.coefficients[0] - intercept) < 1e-9);
	CU_ASSERT(fabs(fit.residual - sqrt(rss / 4)) < 1e-9);
	CU_ASSERT(fabs(fit.errors[1] - sqrt(rss / 4) / sqrt(spread)) < 1e-9);
}

/* The calibration's design (outputs/calibration.c): counts of fork, VMAs,
 * PTE pages, PTEs and anon_vmas of a base layout and three layouts along
 * each of the four, as empty VMAs, anonymous VMAs, windows, pages. */
static const unsigned design[][4] = {
	{ 0, 1, 1, 1 },
	{ 200, 1, 1, 1 }, { 400, 1, 1, 1 }, { 800, 1, 1, 1 },
	{ 0, 1, 16, 1 }, { 0, 1, 32, 1 }, { 0, 1, 64, 1 },
	{ 0, 1, 16, 128 }, { 0, 1, 16, 256 }, { 0, 1, 16, 512 },
	{ 0, 64, 1, 1 }, { 0, 128, 1, 1 }, { 0, 256, 1, 1 },
};
#define DESIGN (sizeof(design) / sizeof(design[0]))
/* 500 us per fork, 0.6 per VMA, 1.5 per PTE page, 0.05 per PTE, 3 per anon_vma */
static const double step_us[5] = { 500, 0.6, 1.5, 0.05, 3 };

static void design_counts(double x[DESIGN][5], double y[DESIGN], const double *truth_us)
{
	for (size_t i = 0; i < DESIGN; i++) {
		const unsigned *d = design[i];
		double counts[5] = { 1, d[0] + d[1], (double)d[1] * d[2], (double)d[1] * d[2] * d[3], d[1] };
		y[i] = 0;
		for (size_t j = 0; j < 5; j++) {
			x[i][j] = counts[j];
			y[i] += truth_us[j] * counts[j];
		}
		y[i] += (double)((i * 7) % 5) - 2;   /* -2..+2 us, a known small disturbance */
	}
}

static void test_robust_outliers(void)
{
	double x[DESIGN][5], y[DESIGN];
	design_counts(x, y, step_us);
	/* two layouts timed while something else ran: +400 and +300 us */
	y[9] += 400;
	y[2] += 300;
	struct fit_result robust, plain;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_robust(&x[0][0], y, DESIGN, 5, 1, &robust, &error), 0);
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&x[0][0], y, DESIGN, 5, &plain, &error), 0);
	/* within 2 us of the fork, 0.02 per VMA, 0.1 per PTE page, 0.002 per
	 * PTE, 0.1 per anon_vma: what +-2 us over these counts allows */
	const double within[5] = { 2, 0.02, 0.1, 0.002, 0.1 };
	bool plain_misses = false;
	for (size_t j = 0; j < 5; j++) {
		CU_ASSERT(fabs(robust.coefficients[j] - step_us[j]) < within[j]);
		CU_ASSERT(!robust.dropped[j]);
		plain_misses |= fabs(plain.coefficients[j] - step_us[j]) >= within[j];
	}
	/* least squares follows the outliers: the test tells the two apart */
	CU_ASSERT(plain_misses);
	CU_ASSERT(fabs(plain.coefficients[3] - step_us[3]) >= within[3]);
	CU_ASSERT(robust.robust && !plain.robust);
	CU_ASSERT_EQUAL(robust.outliers, 2);
	/* the held-out layout 150 + 20 anonymous VMAs x 8 windows x 64 pages:
	 * 500 + 0.6 x 170 + 1.5 x 160 + 0.05 x 10240 + 3 x 20 = 1414 us */
	const double held_out[5] = { 1, 170, 160, 10240, 20 };
	CU_ASSERT(fabs(fit_predict(&robust, held_out) - 1414) < 20);
}

static void test_robust_negative(void)
{
	/* PTEs cost nothing here, and the disturbance pushes their fitted cost
	 * below 0: the term is dropped (0 +- 0, its negative value kept to
	 * be said), the others fitted again and still right */
	const double no_pte_us[5] = { 500, 0.6, 1.5, 0, 3 };
	double x[DESIGN][5], y[DESIGN];
	design_counts(x, y, no_pte_us);
	y[7] -= 1;
	y[8] -= 3;
	y[9] -= 9;
	struct fit_result fit, plain;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(fit_least_squares(&x[0][0], y, DESIGN, 5, &plain, &error), 0);
	CU_ASSERT(plain.coefficients[3] < 0);
	CU_ASSERT_EQUAL_FATAL(fit_robust(&x[0][0], y, DESIGN, 5, 1, &fit, &error), 0);
	CU_ASSERT(fit.dropped[3]);
	CU_ASSERT(fit.dropped_us[3] < 0);
	CU_ASSERT_EQUAL(fit.coefficients[3], 0);
	CU_ASSERT_EQUAL(fit.errors[3], 0);
	for (size_t j = 0; j < 5; j++) {
		if (j != 3)
			CU_ASSERT(!fit.dropped[j] && fit.coefficients[j] > 0);
	}
	CU_ASSERT(fabs(fit.coefficients[1] - 0.6) < 0.05);
	CU_ASSERT(fabs(fit.coefficients[4] - 3) < 0.2);
	/* the fork term (free) is never dropped, whatever its sign */
	for (size_t i = 0; i < DESIGN; i++)
		y[i] -= 600;
	CU_ASSERT_EQUAL_FATAL(fit_robust(&x[0][0], y, DESIGN, 5, 1, &fit, &error), 0);
	CU_ASSERT(!fit.dropped[0] && fit.coefficients[0] < 0);
}

static void test_refused(void)
{
	struct fit_result fit;
	struct error error;
	double y[4] = { 1, 2, 3, 4 };
	CU_ASSERT_EQUAL(fit_least_squares(&layouts[0][0], y, 4, 4, &fit, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "4 measurements cannot fit 4 terms"));
	CU_ASSERT_EQUAL(fit_least_squares(&layouts[0][0], y, 4, 0, &fit, &error), -1);
}

void suite_fit(void)
{
	ADD_SUITE("fit", test_exact, test_disturbed, test_line_error, test_robust_outliers, test_robust_negative,
		  test_refused);
}
